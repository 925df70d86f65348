// The peer of `manage.py loadtest --peer boardgameio`: boardgame.io's own server
// (Koa, its lobby API, its socket.io transport, its Master) with a PostgreSQL
// storage adapter from npm (bgio-postgres), playing a small dominoes game.
//
// Usage: PORT=8601 DATABASE_URL=postgres://postgres@127.0.0.1:5432/cf_peer_boardgameio node server.js
// (or `make peer-boardgameio`, which runs `npm ci` first). See README.md here.
//
// The game ("dominoes"): a double-6 set, 7 tiles dealt to each of 2 players
// (hidden: G.players is stripped to the viewer's own, the boneyard is G.secret),
// one tile opens a line with two open ends. A move is one validated state change:
//   play(tile, end)  the tile must be in the mover's hand and match that open end,
//                    else INVALID_MOVE; the turn passes;
//   draw()           only with no playable tile and a non-empty boneyard; the turn stays;
//   pass()           only with no playable tile and an empty boneyard; the turn passes.
// The game ends when a hand is empty (its player wins) or both pass in a row (blocked).
//
// Moves over HTTP: boardgame.io takes moves over socket.io (`update` messages).
// POST /peer/games/:name/:matchID/moves feeds one to the very code a socket
// `update` runs (SocketIO.init in boardgame.io/dist/cjs/server.js): a new Master
// on the server's storage, with a transport that publishes to the match's
// pub/sub channel (the broadcast to any socket in the match), queued on the
// transport's per-match queue (one action at a time per match), then
// Master.onUpdate: credentials checked against the match's metadata, state
// fetched, the reducer run (the move validated), the state and log written, the
// metadata's updatedAt written. The answer is the mover's filtered view (what a
// socket client gets as its `update`), so that a client can go on without
// another request, as with our server's answer to a move.
'use strict';

const { Server, Origins } = require('boardgame.io/server');
const { Master } = require('boardgame.io/master');
const { getFilterPlayerView } = require('boardgame.io/internal');
const { INVALID_MOVE, PlayerView } = require('boardgame.io/core');
const { PostgresStore } = require('bgio-postgres');

const PIPS = 6;
const HAND = 7;

function tiles() {
  const all = [];
  for (let high = 0; high <= PIPS; high++) {
    for (let low = 0; low <= high; low++) all.push(`${high}-${low}`);
  }
  return all;
}

function playable(hand, ends) {
  return hand.some((tile) => tile.split('-').some((pip) => ends.includes(Number(pip))));
}

const Dominoes = {
  name: 'dominoes',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ random }) => {
    const deck = random.Shuffle(tiles());
    const [high, low] = deck.pop().split('-').map(Number);
    const players = { 0: { hand: deck.splice(0, HAND) }, 1: { hand: deck.splice(0, HAND) } };
    return {
      ends: [high, low],
      line: 1,
      handSizes: { 0: HAND, 1: HAND },
      boneyardSize: deck.length,
      passes: 0,
      players,
      secret: { boneyard: deck },
    };
  },
  moves: {
    play: ({ G, playerID, events }, tile, end) => {
      const hand = G.players[playerID].hand;
      const at = hand.indexOf(tile);
      if (at < 0 || (end !== 0 && end !== 1) || typeof tile !== 'string') return INVALID_MOVE;
      const [a, b] = tile.split('-').map(Number);
      const open = G.ends[end];
      if (a !== open && b !== open) return INVALID_MOVE;
      hand.splice(at, 1);
      G.ends[end] = a === open ? b : a;
      G.line += 1;
      G.handSizes[playerID] = hand.length;
      G.passes = 0;
      events.endTurn();
    },
    draw: ({ G, playerID }) => {
      const hand = G.players[playerID].hand;
      if (playable(hand, G.ends) || G.secret.boneyard.length === 0) return INVALID_MOVE;
      hand.push(G.secret.boneyard.pop());
      G.boneyardSize = G.secret.boneyard.length;
      G.handSizes[playerID] = hand.length;
    },
    pass: ({ G, playerID, events }) => {
      if (playable(G.players[playerID].hand, G.ends) || G.secret.boneyard.length > 0) return INVALID_MOVE;
      G.passes += 1;
      events.endTurn();
    },
  },
  endIf: ({ G }) => {
    for (const id of ['0', '1']) if (G.handSizes[id] === 0) return { winner: id };
    if (G.passes >= 2) return { draw: true };
    return undefined;
  },
  playerView: PlayerView.STRIP_SECRETS,
};

const games = [Dominoes];
const port = Number(process.env.PORT || 8601);
const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/cf_peer_boardgameio';
const db = new PostgresStore(databaseUrl, {
  logging: process.env.PEER_SQL_LOG ? (sql) => console.log(sql) : false, // PEER_SQL_LOG=1: every statement
  pool: { max: Number(process.env.PEER_POOL || 10), min: 0, idle: 10000 },
});
const server = Server({ games, db, origins: [Origins.LOCALHOST] });

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {});
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function problem(ctx, status, code) {
  ctx.status = status;
  ctx.body = { code };
}

// The processed game, as the transport's Master gets it (Server() processes `games` in place of ours).
const gameNamed = (name) => games.find((game) => game.name === name);
const views = new Map(games.map((game) => [game.name, getFilterPlayerView(game)]));

server.router.post('/peer/games/:name/:matchID/moves', async (ctx) => {
  const game = gameNamed(ctx.params.name);
  if (!game) return problem(ctx, 404, 'no_such_game');
  let body;
  try {
    body = await readJson(ctx.req);
  } catch (error) {
    return problem(ctx, 400, 'bad_json');
  }
  const { playerID, credentials, stateID, move, args } = body;
  const { matchID } = ctx.params;
  const pubSub = server.transport.pubSub;
  const transportAPI = {
    send: () => {}, // only onSync sends to one socket; a move broadcasts
    sendAll: (payload) => pubSub.publish(`MATCH-${matchID}`, payload),
  };
  const master = new Master(game, server.db, transportAPI, server.auth);
  let after;
  master.subscribe(({ state }) => {
    after = state;
  });
  const action = {
    type: 'MAKE_MOVE',
    payload: { type: move, args: Array.isArray(args) ? args : [], playerID, credentials },
  };
  const result = await server.transport
    .getMatchQueue(matchID)
    .add(() => master.onUpdate(action, stateID, matchID, playerID));
  if (result && result.error === 'game not found') return problem(ctx, 404, 'no_such_match');
  if (result && result.error) return problem(ctx, 403, 'unauthorized');
  if (after === undefined) return problem(ctx, 409, 'stale_or_not_your_turn');
  if (after._stateID !== stateID + 1) return problem(ctx, 422, 'invalid_move');
  const [, view] = views.get(game.name)(playerID, { type: 'update', args: [matchID, after] }).args;
  ctx.body = { stateID: view._stateID, G: view.G, ctx: view.ctx };
});

// A player's view of a match (at a match's start: the hand): what onSync fetches, filtered.
server.router.get('/peer/games/:name/:matchID/state', async (ctx) => {
  const game = gameNamed(ctx.params.name);
  if (!game) return problem(ctx, 404, 'no_such_game');
  const { playerID, credentials } = ctx.query;
  const { state, metadata } = await server.db.fetch(ctx.params.matchID, { state: true, metadata: true });
  if (state === undefined) return problem(ctx, 404, 'no_such_match');
  const ok = await server.auth.authenticateCredentials({ playerID, credentials, metadata });
  if (!ok) return problem(ctx, 403, 'unauthorized');
  const [, view] = views.get(game.name)(playerID, { type: 'update', args: [ctx.params.matchID, state] }).args;
  ctx.body = { stateID: view._stateID, G: view.G, ctx: view.ctx };
});

// Only this machine: boardgame.io's run() listens on every interface.
const listen = server.app.listen;
server.app.listen = (portNumber, callback) => listen.call(server.app, portNumber, '127.0.0.1', callback);

server.run({ port }, () => {
  console.log(`boardgame.io ${require('boardgame.io/package.json').version} peer on 127.0.0.1:${port}, ${databaseUrl}`);
});
