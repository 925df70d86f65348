/**
 * The TypeScript contract check (make contract-ts): the types openapi-typescript
 * generates from ../../openapi.yaml (src/openapi.ts) decode answers recorded from a
 * live server (fixtures/, see record_fixtures.py).
 *
 * It compiles only if what a client reads is typed precisely: the streams' frames,
 * as the shipped reader (src/stream.ts) yields them, are unions in which `event`
 * narrows `data`, every event type has a closed payload schema, and the
 * fields read below are plain numbers, strings, arrays and nullable models (a field
 * typed `unknown` or an open object does not compile; `any` is caught by the
 * exact-type assertions and by scripts/lint-generated.mjs). It exits non-zero when a
 * recording disagrees with the types or with what the contract's text promises.
 */

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import type { components, paths } from "./openapi.js";
import { type AccountStreamMessage, type GameStreamMessage, messagesOf, readStream, SseParser } from "./stream.js";

type Schemas = components["schemas"];
type Game = Schemas["GameView"];
type Event = Schemas["Event"];
type EventData = Schemas["EventData"];
type EventType = Event["type"];
type Payload<T extends EventType> = Extract<EventData, { type: T }>;
type GameStreamFrame = Schemas["GameStreamFrame"];
type GameStreamEndData = Schemas["GameStreamEndData"];
type AccountStreamFrame = Schemas["AccountStreamFrame"];
type AccountSnapshot = Schemas["AccountSnapshot"];
type AccountGame = Schemas["AccountGame"];
type ChatMessage = Schemas["ChatMessage"];
/** The table chat's frames on the game stream (no id: Last-Event-ID stays the game's seq). */
type ChatEventName = "chat_message" | "chat_message_removed";
type LayoutNode = Schemas["LayoutNode"];
type LayoutOpenEnd = Schemas["LayoutOpenEnd"];
type MatchState = NonNullable<Game["state"]>;
type GameCreate = NonNullable<paths["/api/v1/games/"]["post"]["requestBody"]>["content"]["application/json"];
type MoveSubmit = NonNullable<paths["/api/v1/games/{game_id}/moves/"]["post"]["requestBody"]>["content"]["application/json"];

// -- Compile time: what the generated types must say --------------------------

/** True only when A and B are the same type (`any` equals nothing but `any`). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
/** The members of a union that take any key (an index signature). */
type Open<U> = U extends unknown ? (string extends keyof U ? U : never) : never;
/** Fails to compile naming the offending members unless T is never. */
type None<T extends never> = T;

type StreamOf<P extends "/api/v1/games/{game_id}/stream/" | "/api/v1/me/stream/"> =
  paths[P]["get"]["responses"][200]["content"]["text/event-stream"];
/** The member(s) of a frame union whose `event` may be E: what `frame.event === E` narrows to. */
type On<U, E extends string> = U extends { event: infer K } ? (E extends K ? U : never) : never;

export type ContractAssertions = [
  // A stream's body is text (what a generator can read whole); its frames are read with
  // the reader (src/stream.ts), which yields the contract's message unions.
  Assert<Equals<StreamOf<"/api/v1/games/{game_id}/stream/">, string>>,
  Assert<Equals<StreamOf<"/api/v1/me/stream/">, string>>,
  // In a message union, `event` narrows `data` (and `id`).
  Assert<Equals<On<GameStreamMessage, "snapshot">["data"], Game>>,
  Assert<Equals<On<GameStreamMessage, "tile_played">["data"], Event>>,
  Assert<Equals<On<GameStreamMessage, "tile_played">["id"], string>>,
  Assert<Equals<On<GameStreamMessage, "end">["data"], GameStreamEndData>>,
  Assert<Equals<On<GameStreamMessage, ChatEventName>["data"], ChatMessage>>,
  Assert<Equals<On<AccountStreamMessage, "snapshot">["data"], AccountSnapshot>>,
  Assert<Equals<On<AccountStreamMessage, "your_turn">["data"], AccountGame>>,
  Assert<Equals<On<AccountStreamMessage, "challenge_received">["data"], Schemas["Challenge"]>>,
  Assert<Equals<On<AccountStreamMessage, "table_open">["data"], Schemas["GameSummary"]>>,
  Assert<Equals<Exclude<GameStreamMessage["event"], GameStreamFrame["event"]>, never>>,
  Assert<Equals<Exclude<AccountStreamMessage["event"], AccountStreamFrame["event"]>, never>>,
  None<Open<GameStreamMessage | AccountStreamMessage>>,
  // The game view answers Game.
  Assert<Equals<paths["/api/v1/games/{game_id}/"]["get"]["responses"][200]["content"]["application/json"], Game>>,
  // One payload schema per event type, each closed (no [key: string]: unknown).
  Assert<Equals<EventData["type"], EventType>>,
  None<Open<EventData>>,
  None<Open<Game | MatchState | NonNullable<Game["you"]> | GameStreamEndData | AccountSnapshot | AccountGame>>,
  None<Open<GameStreamFrame | AccountStreamFrame>>,
  // An event frame is named by its event's type and has an id; data is JSON text.
  Assert<Equals<Exclude<GameStreamFrame["event"], "snapshot" | "end" | ChatEventName>, EventType>>,
  Assert<Equals<Extract<GameStreamFrame, { event: EventType }>["id"], string>>,
  // The chat's frames have no id.
  Assert<Equals<"id" extends keyof Extract<GameStreamFrame, { event: ChatEventName }> ? true : false, false>>,
  Assert<Equals<GameStreamFrame["data"], string>>,
  // Fields read below, exactly (required, not any, not unknown).
  Assert<Equals<Payload<"game_created">["ruleset"]["players"], number>>,
  Assert<Equals<Payload<"game_created">["ruleset"]["hand_size"], number | null>>,
  Assert<Equals<Payload<"tile_played">["tile"], string>>,
  Assert<Equals<Payload<"tile_played">["new_ends"], string[]>>,
  Assert<Equals<Payload<"round_started">["hand_sizes"], number[]>>,
  Assert<Equals<Payload<"round_ended">["hands"], string[][]>>,
  Assert<Equals<Payload<"match_ended">["totals"], number[]>>,
  Assert<Equals<Payload<"match_ended">["seed"], number>>,
  Assert<Equals<Game["seed"], number | null>>,
  Assert<Equals<AccountGame["result"], Schemas["Result"] | null>>,
  Assert<Equals<NonNullable<AccountGame["result"]>["totals"], number[]>>,
];

/** Requests as the README writes them type-check: fields with a default may be left out. */
export const README_CREATE = { ruleset: { set_max: 6, players: 2 }, seed: 49 } satisfies GameCreate;
export const EMPTY_CREATE = {} satisfies GameCreate;

/** Every event type, exactly (a type added to or removed from the contract breaks the compile). */
const EVENT_TYPES = {
  game_created: true,
  seat_taken: true,
  seat_left: true,
  bot_added: true,
  game_started: true,
  game_aborted: true,
  seat_resigned: true,
  turn_timed_out: true,
  seat_handed_to_bot: true,
  seat_returned: true,
  round_started: true,
  drew: true,
  spinner_placed: true,
  tile_played: true,
  spinner_completed: true,
  foot_opened: true,
  foot_completed: true,
  passed: true,
  round_ended: true,
  match_ended: true,
} as const satisfies Record<EventType, true>;

type AccountUpdateName = "your_turn" | "game_started" | "game_over";
const ACCOUNT_UPDATES = { your_turn: true, game_started: true, game_over: true } as const satisfies Record<
  AccountUpdateName,
  true
>;
/** The apps' feeds on the account stream (seeks, challenges, warnings, sanctions): every name, exactly. */
type FeedUpdateName = Exclude<AccountStreamFrame["event"], "snapshot" | AccountUpdateName>;
const FEED_UPDATES = {
  challenge_received: true,
  challenge_sent: true,
  challenge_answered: true,
  challenge_started: true,
  challenge_declined: true,
  challenge_expired: true,
  challenge_cancelled: true,
  seek_waiting: true,
  seek_matched: true,
  seek_expired: true,
  seek_cancelled: true,
  warning_issued: true,
  warning_acknowledged: true,
  sanction_imposed: true,
  sanction_appealed: true,
  sanction_lifted: true,
  table_open: true,
  table_closed: true,
  analysis_progress: true,
} as const satisfies Record<FeedUpdateName, true>;
type FeedItem =
  | { kind: "challenge"; event: FeedUpdateName; id: string; challenge: Schemas["Challenge"] }
  | { kind: "seek"; event: FeedUpdateName; id: string; seek: Schemas["Seek"] }
  | { kind: "warning"; event: FeedUpdateName; id: string; warning: Schemas["Warning"] }
  | { kind: "sanction"; event: FeedUpdateName; id: string; sanction: Schemas["Sanction"] }
  | { kind: "table"; event: FeedUpdateName; id: string; table: Schemas["GameSummary"] }
  | { kind: "analysis"; event: FeedUpdateName; id: string; analysis: Schemas["Analysis"] };

function isOneOf<K extends string>(names: Record<K, true>, name: string): name is K {
  return Object.hasOwn(names, name);
}

/** The one unchecked step: JSON text is taken for the model the contract names for it. */
function json<T>(text: string): T {
  return JSON.parse(text) as T;
}

// -- Frames: the reader's messages, narrowed by `event` ------------------------

type GameStreamItem =
  | { kind: "snapshot"; game: Game }
  | { kind: "event"; id: string; event: Event }
  | { kind: "end"; end: GameStreamEndData }
  | { kind: ChatEventName; message: ChatMessage };

/** A message of the game stream as the reader yields it, narrowed by its `event` alone;
 * undefined for a name the contract does not know (a client skips those: new event types may come). */
function gameItem(frame: GameStreamMessage): GameStreamItem | undefined {
  switch (frame.event) {
    case "snapshot":
      assert.ok(!("id" in frame), "a snapshot frame with an id");
      return { kind: "snapshot", game: frame.data };
    case "end":
      return { kind: "end", end: frame.data };
    case "chat_message":
    case "chat_message_removed":
      assert.ok(!("id" in frame), `a ${frame.event} frame with an id`);
      return { kind: frame.event, message: frame.data };
    default:
      if (!isOneOf(EVENT_TYPES, frame.event)) return undefined;
      assert.ok(typeof frame.id === "string", `a ${frame.event} frame without id`);
      return { kind: "event", id: frame.id, event: frame.data };
  }
}

type AccountStreamItem =
  | { kind: "snapshot"; games: AccountGame[] }
  | { kind: AccountUpdateName; id: string; game: AccountGame }
  | FeedItem;

function accountItem(frame: AccountStreamMessage): AccountStreamItem | undefined {
  if (frame.event === "snapshot") return { kind: "snapshot", games: frame.data.games };
  if (!isOneOf(ACCOUNT_UPDATES, frame.event) && !isOneOf(FEED_UPDATES, frame.event)) return undefined;
  assert.ok(typeof frame.id === "string", `a ${frame.event} frame without id`);
  switch (frame.event) {
    case "your_turn":
    case "game_started":
    case "game_over":
      return { kind: frame.event, id: frame.id, game: frame.data };
    case "challenge_received":
    case "challenge_sent":
    case "challenge_answered":
    case "challenge_started":
    case "challenge_declined":
    case "challenge_expired":
    case "challenge_cancelled":
      return { kind: "challenge", event: frame.event, id: frame.id, challenge: frame.data };
    case "seek_waiting":
    case "seek_matched":
    case "seek_expired":
    case "seek_cancelled":
      return { kind: "seek", event: frame.event, id: frame.id, seek: frame.data };
    case "table_open":
    case "table_closed":
      return { kind: "table", event: frame.event, id: frame.id, table: frame.data };
    case "warning_issued":
    case "warning_acknowledged":
      return { kind: "warning", event: frame.event, id: frame.id, warning: frame.data };
    case "sanction_imposed":
    case "sanction_appealed":
    case "sanction_lifted":
      return { kind: "sanction", event: frame.event, id: frame.id, sanction: frame.data };
    case "analysis_progress":
      return { kind: "analysis", event: frame.event, id: frame.id, analysis: frame.data };
    default: {
      const unhandled: never = frame;
      throw new Error(`unhandled frame ${JSON.stringify(unhandled)}`);
    }
  }
}

// -- The public table, rebuilt from events (EventData narrowed by `type`) -----

const TILE = /^([0-9]+)-([0-9]+)$/;

function pips(tile: string): [number, number] {
  const match = TILE.exec(tile);
  assert.ok(match?.[1] !== undefined && match[2] !== undefined, `not a tile: ${tile}`);
  return [Number(match[1]), Number(match[2])];
}

class Table {
  players = 0;
  handSize: number | null = null;
  doubleBlankPoints = 0;
  seats = new Map<number, string>();
  started = false;
  round = 0;
  handSizes: number[] = [];
  boneyard = 0;
  openEnds = new Set<string>();
  tilesDown = 0;
  totals: number[] = [];
  roundsEnded = 0;
  result: Payload<"match_ended"> | undefined;
  counts = new Map<EventType, number>();

  constructor(ruleset?: Payload<"game_created">["ruleset"]) {
    if (ruleset) this.setRuleset(ruleset);
  }

  private setRuleset(ruleset: Payload<"game_created">["ruleset"]): void {
    this.players = ruleset.players;
    this.handSize = ruleset.hand_size;
    this.doubleBlankPoints = ruleset.double_blank_points;
  }

  private down(seat: number): void {
    const held = this.handSizes[seat];
    assert.ok(held !== undefined && held > 0, `seat ${seat} plays with no tile in hand`);
    this.handSizes[seat] = held - 1;
    this.tilesDown += 1;
  }

  apply(data: EventData): void {
    this.counts.set(data.type, (this.counts.get(data.type) ?? 0) + 1);
    switch (data.type) {
      case "game_created":
        this.setRuleset(data.ruleset);
        assert.ok(data.creator.length > 0);
        break;
      case "seat_taken":
        this.seats.set(data.seat, data.player);
        break;
      case "bot_added":
        this.seats.set(data.seat, `${data.strategy} bot`);
        break;
      case "seat_left":
        this.seats.delete(data.seat);
        break;
      case "game_started":
        assert.equal(this.seats.size, this.players, "game_started with empty seats");
        this.started = true;
        break;
      case "game_aborted":
        assert.ok(typeof data.reason === "string" && typeof data.moderator === "boolean");
        break;
      case "seat_resigned":
      case "seat_handed_to_bot":
        assert.ok(data.bot_strategy.length > 0);
        break;
      case "turn_timed_out":
        assert.ok(data.timeouts_in_row >= 1);
        break;
      case "seat_returned":
        this.seats.set(data.seat, data.player);
        break;
      case "round_started":
        assert.equal(data.round, this.round + 1, "rounds in order");
        assert.equal(data.hand_sizes.length, this.players);
        if (this.handSize !== null) assert.ok(data.hand_sizes.every((n) => n === this.handSize));
        pips(data.starting_double);
        this.round = data.round;
        this.handSizes = [...data.hand_sizes];
        this.boneyard = data.boneyard_size;
        this.openEnds.clear();
        this.tilesDown = 0;
        break;
      case "drew": {
        assert.equal(data.round, this.round);
        assert.equal(data.boneyard_size, this.boneyard - 1, "one tile less in the boneyard");
        this.boneyard = data.boneyard_size;
        this.handSizes[data.seat] = (this.handSizes[data.seat] ?? 0) + 1;
        break;
      }
      case "spinner_placed": {
        const [a, b] = pips(data.tile);
        assert.equal(a, b, "the spinner is a double");
        this.down(data.seat);
        for (const arm of data.arms) this.openEnds.add(arm);
        break;
      }
      case "tile_played": {
        assert.ok(this.openEnds.delete(data.end), `${data.tile} played on ${data.end}, not an open end`);
        assert.ok(pips(data.tile).includes(data.outer), `${data.tile} shows ${data.outer}`);
        this.down(data.seat);
        for (const end of data.new_ends) this.openEnds.add(end);
        break;
      }
      case "foot_opened":
        assert.equal(data.toes.length, 3, "a chicken foot has three toes");
        assert.ok(data.toes.every((toe) => this.openEnds.has(toe)), "toes are open ends");
        assert.equal(pips(data.double)[0], pips(data.double)[1]);
        break;
      case "spinner_completed":
      case "foot_completed":
        assert.equal(data.round, this.round);
        break;
      case "passed":
        assert.ok(["no_play", "drawn_tile_unplayable", "declined_drawn_tile"].includes(data.reason));
        break;
      case "round_ended": {
        assert.equal(data.number, this.round);
        assert.equal(data.hands.length, this.players);
        data.hands.forEach((hand, seat) => {
          assert.equal(hand.length, this.handSizes[seat], `seat ${seat}'s revealed hand has its tracked size`);
          const score = hand.reduce((sum, tile) => {
            const [a, b] = pips(tile);
            return sum + (a + b === 0 ? this.doubleBlankPoints : a + b);
          }, 0);
          assert.equal(data.scores[seat], score, `seat ${seat}'s score is its pips`);
        });
        if (data.reason === "domino") {
          assert.ok(data.went_out !== null && data.went_out !== undefined, "domino: someone went out");
          assert.equal(data.hands[data.went_out]?.length, 0);
        }
        this.totals = data.scores.map((score, seat) => score + (this.totals[seat] ?? 0));
        assert.deepEqual(data.totals, this.totals, "totals add up the rounds");
        this.roundsEnded += 1;
        break;
      }
      case "match_ended": {
        assert.deepEqual(data.totals, this.totals);
        const best = Math.min(...data.totals);
        assert.ok(data.winners.every((seat) => data.totals[seat] === best), "winners have the lowest total");
        assert.ok(Number.isInteger(data.seed));
        this.result = data;
        break;
      }
      default: {
        // A new event type in the contract must be handled here (and in EVENT_TYPES).
        const unhandled: never = data;
        throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
      }
    }
  }
}

// -- The checks ----------------------------------------------------------------

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8");

interface GameStreamResult {
  gameId: number;
  table: Table;
  lastSeq: number;
}

function checkGameStream(): [GameStreamResult, string] {
  const parser = new SseParser();
  const frames = messagesOf<GameStreamMessage>(fixture("game_stream.txt"), parser);
  assert.equal(parser.retry, 2000, "the stream starts with retry: 2000");
  const skipped: string[] = [];
  const items: GameStreamItem[] = [];
  for (const frame of frames) {
    const item = gameItem(frame);
    if (item === undefined) skipped.push(frame.event);
    else items.push(item);
  }
  assert.deepEqual(skipped, [], "every frame name is in the contract");
  const [first, ...rest] = items;
  const last = rest.pop();
  assert.ok(first?.kind === "snapshot", "first frame: snapshot");
  assert.ok(last?.kind === "end", "last frame: end");
  const snapshot = first.game;
  const table = new Table();
  let seq = 0;
  for (const item of rest) {
    assert.ok(item.kind === "event", `a ${item.kind} frame between snapshot and end`);
    const { id, event } = item;
    assert.equal(id, String(event.seq), "id: is the event's seq");
    assert.equal(event.seq, seq + 1, "events in order, each once");
    assert.equal(event.data.type, event.type, "data.type is the event's type");
    assert.ok(!Number.isNaN(Date.parse(event.created_at)));
    seq = event.seq;
    table.apply(event.data);
  }
  assert.deepEqual(last.end, { seq, status: "finished" }, "end: the last seq, finished");
  assert.equal(table.players, snapshot.game.ruleset.players, "game_created's ruleset is the game's");
  assert.equal(snapshot.game.seats.length, table.players);
  assert.ok(table.result !== undefined, "a full match ends with match_ended");
  const counts = [...table.counts].map(([type, n]) => `${type} ${n}`).join(", ");
  const detail =
    `game ${snapshot.game.id}: ${frames.length} frames (snapshot, ${seq} events, end), ` +
    `${table.roundsEnded} rounds, totals [${table.result.totals.join(", ")}], winners [${table.result.winners.join(", ")}]; ${counts}`;
  return [{ gameId: snapshot.game.id, table, lastSeq: seq }, detail];
}

/** The open ends at the leaves of the layout tree, and how many tiles are down. */
function walk(node: LayoutNode, ends: LayoutOpenEnd[] = []): { ends: LayoutOpenEnd[]; tiles: number } {
  let tiles = 1;
  pips(node.tile);
  assert.ok(node.kind === "spinner" || node.kind === "tile" || node.kind === "double");
  for (const slot of node.next) {
    if ("end" in slot) ends.push(slot);
    else tiles += walk(slot, ends).tiles;
  }
  return { ends, tiles };
}

function checkGameView(played: GameStreamResult): string {
  const view = json<Game>(fixture("game_view.json"));
  assert.equal(view.game.id, played.gameId, "the view is of the recorded game");
  assert.equal(view.game.status, "running");
  const { state, you } = view;
  assert.ok(state !== null && you !== null, "a running game's view has a state and, for a player, you");
  assert.ok(you.your_turn && you.hand !== null, "recorded on your turn");
  // The round's public history, replayed, gives the state the view shows.
  const table = new Table(state.ruleset);
  table.round = state.round.number - 1;
  for (const data of state.history) table.apply(data);
  assert.deepEqual(table.handSizes, state.hand_sizes, "history -> hand sizes");
  assert.equal(table.boneyard, state.boneyard_size, "history -> boneyard size");
  assert.deepEqual([...table.openEnds].sort(), state.open_ends.map((end) => end.id).sort(), "history -> open ends");
  assert.equal(state.hand_sizes[you.seat], you.hand.length, "your hand has your seat's size");
  assert.ok(state.layout !== null, "a layout once the spinner is down");
  const layout = walk(state.layout);
  assert.equal(layout.tiles, table.tilesDown, "layout tiles = tiles played this round");
  const ends = new Map(state.open_ends.map((end) => [end.id, end]));
  assert.deepEqual(layout.ends.map((end) => end.end).sort(), [...ends.keys()].sort(), "layout leaves = open ends");
  for (const leaf of layout.ends) assert.equal(ends.get(leaf.end)?.pip, leaf.pip);
  assert.ok(you.legal_moves.length > 0);
  for (const move of you.legal_moves) {
    // A legal move, with the seq it was decided on, is a move submission as it stands.
    const submit: MoveSubmit = { ...move, expected_seq: view.game.seq };
    // The contract's move is a oneOf told apart by type: a play without its tile, or a
    // draw that names a tile, does not compile (tsc fails on an unused expectation).
    // @ts-expect-error a play needs its tile
    const noTile: MoveSubmit = { type: "play", end: "e1", expected_seq: 0 };
    // @ts-expect-error a draw has no tile
    const drawWithTile: MoveSubmit = { type: "draw", tile: "1-2", expected_seq: 0 };
    void noTile;
    void drawWithTile;
    assert.equal(submit.type, move.type);
    if (move.type !== "play") continue;
    // The type narrows the union: a play's tile and end are strings, not optional.
    const tile: string = move.tile;
    const openEnd: string = move.end;
    assert.ok(tile.length > 0 && openEnd.length > 0, "a play names its tile and end");
    assert.ok(you.hand.includes(move.tile), `${move.tile} is in your hand`);
    const end = ends.get(move.end);
    assert.ok(end?.playable === true && pips(move.tile).includes(end.pip), `${move.tile} fits ${move.end}`);
  }
  const final = json<Game>(fixture("game_view_final.json"));
  assert.equal(final.game.status, "finished");
  assert.ok(final.state?.result != null && final.game.result !== null && played.table.result !== undefined);
  assert.deepEqual(final.state.result.totals, played.table.result.totals, "final state: match_ended's totals");
  assert.deepEqual(final.game.result.winners, played.table.result.winners, "game result: match_ended's winners");
  assert.equal(final.seed, played.table.result.seed, "the seed is shown after the end");
  return (
    `round ${state.round.number}/${state.round.of} (${state.round.phase}), seq ${view.game.seq}, ` +
    `${layout.tiles} tiles in the layout, ${ends.size} open ends, hand [${you.hand.join(" ")}], ` +
    `${you.legal_moves.length} legal move(s); final view: ${final.state.status}, seed ${final.seed}`
  );
}

function checkAccountStream(played: GameStreamResult): string {
  const frames = messagesOf<AccountStreamMessage>(fixture("account_stream.txt"));
  const items: AccountStreamItem[] = [];
  for (const frame of frames) {
    const item = accountItem(frame);
    assert.ok(item !== undefined, `frame ${frame.event} is in the contract`);
    items.push(item);
  }
  const [first, ...updates] = items;
  assert.ok(first?.kind === "snapshot", "first frame: snapshot");
  assert.ok(first.games.every((game) => game.status === "open" || game.status === "running"));
  const seen = new Map<string, number>();
  let over: AccountGame | undefined;
  for (const item of updates) {
    assert.ok(item.kind !== "snapshot", "one snapshot per connection");
    if (
      item.kind === "challenge" ||
      item.kind === "seek" ||
      item.kind === "warning" ||
      item.kind === "sanction" ||
      item.kind === "table" ||
      item.kind === "analysis"
    ) {
      seen.set(item.event, (seen.get(item.event) ?? 0) + 1); // the recorded match made none
      continue;
    }
    const { game } = item;
    assert.equal(item.id, `${game.game}.${game.seq}`, "id: <game>.<seq>");
    seen.set(item.kind, (seen.get(item.kind) ?? 0) + 1);
    if (game.game !== played.gameId) continue;
    assert.ok(game.seq <= played.lastSeq);
    if (item.kind === "your_turn") assert.ok(game.your_turn && game.status === "running");
    if (item.kind === "game_started") assert.equal(game.status, "running");
    if (item.kind === "game_over") {
      assert.equal(game.status, "finished");
      over = game;
    }
  }
  assert.ok(over?.result != null && played.table.result !== undefined, "game_over carries the result");
  assert.deepEqual(over.result.totals, played.table.result.totals, "game_over: match_ended's totals");
  assert.deepEqual(over.result.winners, played.table.result.winners);
  assert.equal(over.result.tie_break, played.table.result.tie_break);
  return `${frames.length} frames: snapshot (${first.games.length} games), ${[...seen].map(([k, n]) => `${k} ${n}`).join(", ")}`;
}

/** The parser on what the recordings lack: comments, CRLF (split between chunks too),
 * multi-line data, a frame cut off at the end, frames split anywhere between chunks. */
function checkSseParser(): [null, string] {
  const text = 'retry: 2000\r\n\r\n: keep-alive\r\n\r\nid: 7\r\nevent: drew\r\ndata: {"a":\r\ndata:1}\r\n\r\nevent: end\ndata: x';
  for (const size of [text.length, 1, 2, 3, 5, 7]) {
    const parser = new SseParser();
    const frames = [];
    for (let at = 0; at < text.length; at += size) frames.push(...parser.feed(text.slice(at, at + size)));
    assert.equal(parser.retry, 2000);
    assert.equal(parser.comments, 1);
    assert.deepEqual(frames, [{ event: "drew", id: "7", data: '{"a":\n1}' }], `chunks of ${size}`);
    assert.equal(parser.lastEventId, "7");
  }
  return [null, "comments, CRLF, multi-line data, a frame cut off at the end, any chunking"];
}

/** The recorded game stream, split into its blocks (each ends with a blank line). */
function blocks(text: string): { id: number | undefined; text: string }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith("retry:"))
    .map((block) => {
      const id = /^id: ([0-9]+)$/m.exec(block)?.[1];
      return { id: id === undefined ? undefined : Number(id), text: `${block}\n\n` };
    });
}

/** readStream on a server that replays the recorded game stream and drops the connection
 * after a few events: the reader resumes with Last-Event-ID and reads every event once. */
async function checkResume(): Promise<string> {
  const recorded = blocks(fixture("game_stream.txt"));
  const snapshot = recorded[0];
  assert.ok(snapshot !== undefined && snapshot.text.includes("event: snapshot"));
  const sent: (string | undefined)[] = []; // each connection's Last-Event-ID
  const server = createServer((request, response) => {
    const header = request.headers["last-event-id"];
    const after = typeof header === "string" ? Number(header) : 0;
    sent.push(typeof header === "string" ? header : undefined);
    response.writeHead(200, { "Content-Type": "text/event-stream" });
    response.write("retry: 20\n\n" + snapshot.text);
    let events = 0;
    for (const block of recorded.slice(1)) {
      if (block.id === undefined || block.id <= after) continue;
      response.write(block.text);
      events += 1;
      if (sent.length < 3 && events === 7) {
        response.socket?.end(); // dropped mid-stream (no chunked end): the reader resumes
        return;
      }
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const seqs: number[] = [];
    let snapshots = 0;
    let end: GameStreamEndData | undefined;
    for await (const frame of readStream<GameStreamMessage>(`http://127.0.0.1:${port}/`, { maxConnections: 5 })) {
      if (frame.event === "snapshot") snapshots += 1;
      else if (frame.event === "end") end = frame.data;
      else if (frame.event !== "chat_message" && frame.event !== "chat_message_removed") {
        assert.equal(frame.id, String(frame.data.seq));
        seqs.push(frame.data.seq);
      }
    }
    assert.ok(end !== undefined, "read to the end frame");
    assert.deepEqual(seqs, Array.from({ length: end.seq }, (_, index) => index + 1), "every event once, in order");
    assert.equal(snapshots, 3, "a snapshot per connection");
    assert.deepEqual(sent, [undefined, "7", "14"], "resumed with the last id");
    return `3 connections (2 dropped), Last-Event-ID ${sent.slice(1).join(", ")}, ${seqs.length} events once each, end`;
  } finally {
    server.close();
  }
}

let failures = 0;
function run<T>(name: string, body: () => [T, string]): T | undefined {
  try {
    const [value, detail] = body();
    console.log(`ok   ${name}: ${detail}`);
    return value;
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

run("sse parser", checkSseParser);
const played = run("game stream", checkGameStream);
if (played) {
  run("game view", () => [null, checkGameView(played)]);
  run("account stream", () => [null, checkAccountStream(played)]);
} else {
  failures += 2;
  console.log("FAIL game view, account stream: need the game stream");
}
try {
  console.log(`ok   stream reader resumes: ${await checkResume()}`);
} catch (error) {
  failures += 1;
  console.log(`FAIL stream reader resumes: ${error instanceof Error ? error.message : String(error)}`);
}
console.log(failures === 0 ? "contract-ts: all checks passed" : `contract-ts: ${failures} check(s) failed`);
process.exitCode = failures === 0 ? 0 : 1;
