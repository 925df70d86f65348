// The API client: the ONLY module of the page that talks to the server (fetch).
//
// Every request is one operation of openapi.yaml, listed in OPERATIONS: a request
// whose method and path match none of them is refused here, before it is sent
// (tests/web/test_shell.py checks the list against openapi.yaml, and that no other
// module calls fetch, XMLHttpRequest or EventSource).
//
// Errors: a failed request throws ApiError, whose message is the problem's `detail`
// (application/problem+json; for a validation error, the messages of its `errors`
// by field, and `.detail` the problem's own), `.status` the HTTP status, `.code` the
// problem's stable `code` (`network_error` when the server cannot be reached) and
// `.problem` the whole problem document.
//
// The session: the browser signs in with POST /session/, and its credential is the
// session cookie - HttpOnly, so no script (this page's or an injected one) can read
// it; "remember me" is the cookie's lifetime (two weeks, or until the browser
// closes). Unsafe requests send the session's CSRF token (X-CSRFToken), kept in
// memory only and fetched again (GET /session/) after a reload. What is stored is
// only the account, no secret: {account, remember} in localStorage ("remember me")
// or sessionStorage, under the key "cf.session", so the page draws signed in at
// once; the server's 401 signs it out. `session()` reads it; a change (log-in,
// log-out, a session the server no longer accepts) is announced with a
// "cf:session" event on window. Stored API tokens of earlier versions are revoked
// and forgotten on load (forgetOldTokens).

export const API_ROOT = "/api/v1";

// [method, path template] of every operation the client uses.
export const OPERATIONS = [
  ["POST", "/api/v1/players/"],
  ["GET", "/api/v1/session/"],
  ["POST", "/api/v1/session/"],
  ["DELETE", "/api/v1/session/"],
  ["DELETE", "/api/v1/tokens/{token_id}/"],
  ["GET", "/api/v1/me/"],
  ["GET", "/api/v1/me/stream/"],
  ["GET", "/api/v1/bots/"],
  ["GET", "/api/v1/games/"],
  ["POST", "/api/v1/games/"],
  ["GET", "/api/v1/games/{game_id}/"],
  ["POST", "/api/v1/games/{game_id}/join/"],
  ["POST", "/api/v1/games/{game_id}/leave/"],
  ["POST", "/api/v1/games/{game_id}/start/"],
  ["POST", "/api/v1/games/{game_id}/abort/"],
  ["POST", "/api/v1/games/{game_id}/bots/"],
  ["POST", "/api/v1/games/{game_id}/moves/"],
  ["GET", "/api/v1/games/{game_id}/moves/"],
  ["POST", "/api/v1/games/{game_id}/resign/"],
  ["POST", "/api/v1/games/{game_id}/return/"],
  ["GET", "/api/v1/games/{game_id}/events/"],
  ["GET", "/api/v1/games/{game_id}/record/"],
  ["GET", "/api/v1/games/{game_id}/hands/"],
  ["GET", "/api/v1/games/{game_id}/hands/{number}/"],
  ["GET", "/api/v1/games/{game_id}/stream/"],
  // game analysis in the replay, hints (replay.js)
  ["POST", "/api/v1/games/{game_id}/analysis/"],
  ["GET", "/api/v1/games/{game_id}/analysis/"],
  ["GET", "/api/v1/games/{game_id}/hint/"],
  // finding a game, ratings, the ladder (quickplay.js, challenges.js, leaderboard.js, profile.js, ladder.js)
  ["GET", "/api/v1/presets/"],
  ["POST", "/api/v1/seeks/"],
  ["DELETE", "/api/v1/seeks/{seek_id}/"],
  ["POST", "/api/v1/challenges/"],
  ["POST", "/api/v1/challenges/{challenge_id}/accept/"],
  ["POST", "/api/v1/challenges/{challenge_id}/decline/"],
  ["DELETE", "/api/v1/challenges/{challenge_id}/"],
  ["GET", "/api/v1/leaderboard/"],
  ["GET", "/api/v1/players/{username}/"],
  ["GET", "/api/v1/players/{username}/ratings/"],
  ["GET", "/api/v1/ladder/"],
  // the table chat, reports, warnings and sanctions, "your account" (webtalk)
  ["GET", "/api/v1/games/{game_id}/chat/"],
  ["POST", "/api/v1/games/{game_id}/chat/"],
  ["POST", "/api/v1/reports/"],
  ["GET", "/api/v1/me/warnings/"],
  ["POST", "/api/v1/me/warnings/{warning_id}/acknowledge/"],
  ["GET", "/api/v1/me/sanctions/"],
  ["POST", "/api/v1/me/sanctions/{sanction_id}/appeal/"],
  ["POST", "/api/v1/appeals/"],
  ["GET", "/api/v1/tokens/"],
  ["POST", "/api/v1/me/password/"],
  ["POST", "/api/v1/me/delete/"],
  ["GET", "/api/v1/me/data/"],
  // the second factor ("your account", the log-in form)
  ["GET", "/api/v1/me/second-factor/"],
  ["POST", "/api/v1/me/second-factor/"],
  ["POST", "/api/v1/me/second-factor/confirm/"],
  ["POST", "/api/v1/me/second-factor/disable/"],
];

const MATCHERS = OPERATIONS.map(([method, template]) => ({
  method,
  template,
  pattern: new RegExp("^" + template.replace(/\{[a-z_]+\}/g, "[^/]+") + "$"),
}));

/** The operation ([method, template]) a request is, or null. */
export function operationFor(method, path) {
  const bare = path.split("?", 1)[0];
  const found = MATCHERS.find((m) => m.method === method && m.pattern.test(bare));
  return found ? [found.method, found.template] : null;
}

/** What a problem says to people: its `detail`, or for a validation error each field's messages. */
function problemText(problem) {
  const errors = problem.errors && typeof problem.errors === "object" ? Object.entries(problem.errors) : [];
  if (errors.length) {
    return errors
      .map(([field, messages]) => {
        const words = (Array.isArray(messages) ? messages : [messages]).join(" ");
        return field === "non_field_errors" || field === "detail" ? words : `${field.replace(/_/g, " ")}: ${words}`;
      })
      .join(" ");
  }
  return problem.detail || problem.title || `The server answered ${problem.status}.`;
}

export class ApiError extends Error {
  constructor(problem) {
    super(problemText(problem));
    this.detail = problem.detail;
    this.name = "ApiError";
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
  }
}

// --- the session -------------------------------------------------------------------

const SESSION_KEY = "cf.session";

function stores() {
  const found = [];
  for (const name of ["localStorage", "sessionStorage"]) {
    try {
      if (window[name]) found.push(window[name]);
    } catch {
      // storage disabled (privacy settings): the session lives in memory only
    }
  }
  return found;
}

let memorySession = null;

/** {account, remember} or null. */
export function session() {
  for (const store of stores()) {
    try {
      const raw = store.getItem(SESSION_KEY);
      if (raw) return JSON.parse(raw);
    } catch {
      // unreadable: ignored
    }
  }
  return memorySession;
}

/** The signed-in account ({id, username, ...}) or null. */
export function currentUser() {
  const current = session();
  return current ? current.account : null;
}

function saveSession(value) {
  memorySession = null;
  for (const store of stores()) {
    try {
      store.removeItem(SESSION_KEY);
    } catch {
      // ignored
    }
  }
  if (value) {
    let target = null;
    try {
      target = value.remember ? window.localStorage : window.sessionStorage;
      target.setItem(SESSION_KEY, JSON.stringify(value));
    } catch {
      memorySession = value;
    }
  }
  window.dispatchEvent(new CustomEvent("cf:session", { detail: value ? value.account : null }));
}

/** Forget the session here (the server's session is left alone: see logout()). */
export function forgetSession() {
  csrfToken = null;
  saveSession(null);
}

// The session's CSRF token (GET or POST /session/), in memory only.
let csrfToken = null;
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The CSRF token of the signed-in session (asked for once after a reload), or null. */
async function csrfFor(method, always = false) {
  if (!UNSAFE.has(method) || !(always || session())) return null;
  if (!csrfToken) {
    const response = await send("GET", `${API_ROOT}/session/`, { csrf: false });
    if (response.ok) csrfToken = (await response.json()).csrf_token;
  }
  return csrfToken;
}

/** Earlier versions kept an API token in storage: revoke it on the server, then forget it. */
async function forgetOldTokens() {
  for (const store of stores()) {
    let old = null;
    try {
      old = JSON.parse(store.getItem(SESSION_KEY) || "null");
    } catch {
      old = null;
    }
    if (!old || !old.token) continue;
    try {
      store.removeItem(SESSION_KEY);
    } catch {
      // ignored
    }
    if (old.tokenId !== undefined) {
      try {
        await send("DELETE", `${API_ROOT}/tokens/${encodeURIComponent(old.tokenId)}/`, {
          headers: { Authorization: `Bearer ${old.token}` },
          csrf: false,
        });
      } catch {
        // offline: the token stays valid until it is revoked from another client
      }
    }
    window.dispatchEvent(new CustomEvent("cf:session", { detail: null }));
  }
}
forgetOldTokens();

/** The URL of a stream (same origin). */
export function streamUrl(path) {
  return path.startsWith("/") ? path : `${API_ROOT}/${path}`;
}

// --- requests ----------------------------------------------------------------------

function query(params) {
  if (!params) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function networkProblem(error) {
  return new ApiError({
    status: 0,
    code: "network_error",
    title: "Network error",
    detail: "The server cannot be reached: check the connection, then try again.",
    cause: String(error),
  });
}

/** Send one request of OPERATIONS; answers the response, unread. */
async function send(method, path, { body, headers = {}, csrf = true, csrfAlways = false, signal } = {}) {
  if (!operationFor(method, path)) {
    throw new Error(`${method} ${path} is not an operation the client may use (api.js OPERATIONS)`);
  }
  const sent = { Accept: "application/json", ...headers };
  const token = csrf ? await csrfFor(method, csrfAlways) : null;
  if (token) sent["X-CSRFToken"] = token;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  try {
    return await fetch(path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin", // the session cookie is the credential
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw networkProblem(error);
  }
}

/** The problem a failed response carries, as an ApiError; forgets a token the server refuses. */
async function failure(response, authenticated) {
  let problem = null;
  try {
    problem = await response.json();
  } catch {
    problem = null;
  }
  if (!problem || typeof problem !== "object" || !problem.detail) {
    problem = {
      status: response.status,
      code: `http_${response.status}`,
      title: response.statusText || "Error",
      detail: `The server answered ${response.status} ${response.statusText || ""}`.trim() + ".",
    };
  }
  if (response.status === 401 && authenticated && session()) {
    forgetSession(); // signed out elsewhere, expired, or the account suspended: signed out here too
  }
  if (problem.code === "csrf_failed") csrfToken = null; // asked for again by the next request
  return new ApiError({ status: response.status, ...problem });
}

async function call(method, path, options = {}) {
  const authenticated = options.auth !== false && Boolean(session());
  let response = await send(method, path, options);
  if (response.status === 403 && UNSAFE.has(method)) {
    const refused = await response.clone().json().catch(() => null);
    if (refused && refused.code === "csrf_failed") {
      // e.g. rotated by a log-in in another tab, or a session this page did not know of: once more
      csrfToken = null;
      response = await send(method, path, { ...options, csrfAlways: true });
    }
  }
  if (!response.ok) throw await failure(response, authenticated);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Open a stream (GET .../stream/): the fetch Response, checked; js/sse.js reads it.
 * Answers null for 204 No Content (nothing more will come). Throws ApiError otherwise.
 */
export async function openStreamResponse(path, { lastEventId = null, signal } = {}) {
  const headers = { Accept: "text/event-stream" };
  if (lastEventId !== null && lastEventId !== undefined && lastEventId !== "") {
    headers["Last-Event-ID"] = String(lastEventId);
  }
  const authenticated = Boolean(session());
  const response = await send("GET", streamUrl(path), { headers, signal });
  if (response.status === 204) return null;
  if (!response.ok) throw await failure(response, authenticated);
  return response;
}

const gamePath = (id, action = "") => `${API_ROOT}/games/${encodeURIComponent(id)}/${action ? `${action}/` : ""}`;

// --- accounts ----------------------------------------------------------------------

/** POST /players/: a new account (not signed in: log in next). */
export function register(username, password) {
  return call("POST", `${API_ROOT}/players/`, { body: { username, password }, auth: false });
}

/** POST /session/: signs in (the session cookie), remembered for two weeks or until the browser closes.
 * `otp`: the second factor's code, for an account that has one (else ApiError otp_required). */
export async function login(username, password, remember = false, otp = "") {
  const signedIn = await call("POST", `${API_ROOT}/session/`, {
    body: { username, password, remember: Boolean(remember), ...(otp ? { otp } : {}) },
    auth: false,
  });
  saveSession({ account: signedIn.account, remember: Boolean(remember) });
  csrfToken = signedIn.csrf_token;
  return signedIn.account;
}

/** DELETE /session/: ends the session on the server, then forgets it here (even if the server is away). */
export async function logout() {
  try {
    if (session()) await call("DELETE", `${API_ROOT}/session/`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) {
      forgetSession();
      throw error; // e.g. offline: signed out here; the session ends when its cookie expires
    }
  } finally {
    forgetSession();
  }
}

/** GET /me/: the account (refreshes the stored one). */
export async function me() {
  const account = await call("GET", `${API_ROOT}/me/`);
  const current = session();
  if (current) {
    saveSession({ ...current, account });
  }
  return account;
}

// --- lobby -------------------------------------------------------------------------

/** GET /bots/: the strategies (bot levels) a table may seat. */
export function listBots() {
  return call("GET", `${API_ROOT}/bots/`);
}

/** GET /games/ with {status, mine, limit, offset}: a page {count, next, previous, results}. */
export function listGames(params = {}) {
  return call("GET", `${API_ROOT}/games/${query(params)}`);
}

/** POST /games/: {ruleset, sit, bot_strategy, bot_delay_ms, turn_time_limit, seed, setup}. */
export function createGame(body) {
  return call("POST", `${API_ROOT}/games/`, { body });
}

/** GET /games/{id}/: the game as the caller may see it ({game, state, you, seed}). */
export function getGame(id) {
  return call("GET", gamePath(id));
}

export function joinGame(id, body = {}) {
  return call("POST", gamePath(id, "join"), { body });
}

export function leaveGame(id) {
  return call("POST", gamePath(id, "leave"));
}

export function startGame(id) {
  return call("POST", gamePath(id, "start"));
}

export function abortGame(id, body = {}) {
  return call("POST", gamePath(id, "abort"), { body });
}

/** POST /games/{id}/bots/ {strategy, seat?}: a server bot takes a seat. */
export function addBot(id, body) {
  return call("POST", gamePath(id, "bots"), { body });
}

// --- play --------------------------------------------------------------------------

/**
 * POST /games/{id}/moves/ {type, tile?, end?, expected_seq?}: a MoveResult ({move, events, game}).
 * `idempotencyKey` (optional) makes a retried submission safe.
 */
export function submitMove(id, body, { idempotencyKey } = {}) {
  const headers = idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {};
  return call("POST", gamePath(id, "moves"), { body, headers });
}

/** GET /games/{id}/moves/?after=: a MovePage. */
export function listMoves(id, params = {}) {
  return call("GET", `${gamePath(id, "moves")}${query(params)}`);
}

export function resign(id) {
  return call("POST", gamePath(id, "resign"));
}

/** POST /games/{id}/return/: take back a seat a bot kept after timeouts. */
export function returnToSeat(id) {
  return call("POST", gamePath(id, "return"));
}

/**
 * GET /games/{id}/events/ with {after, wait}: an EventPage {seq, status, events, has_more}.
 * With {all: true}, every page from `after` on, as one EventPage.
 */
export async function getEvents(id, params = {}) {
  const { all = false, ...rest } = params;
  if (!all) return call("GET", `${gamePath(id, "events")}${query(rest)}`);
  const events = [];
  let after = rest.after || 0;
  for (;;) {
    const page = await call("GET", `${gamePath(id, "events")}${query({ after })}`);
    events.push(...page.events);
    if (!page.has_more || page.events.length === 0) {
      return { ...page, events, has_more: false };
    }
    after = page.events[page.events.length - 1].seq;
  }
}

/** GET /games/{id}/record/: the whole record of a finished game. */
export function getRecord(id) {
  return call("GET", gamePath(id, "record"));
}

/** GET /games/{id}/hands/: the rounds' hands (as far as they may be shown). */
export function getHands(id) {
  return call("GET", gamePath(id, "hands"));
}

/** GET /games/{id}/hands/{n}/: one round in detail. */
export function getHand(id, number) {
  return call("GET", `${gamePath(id, "hands")}${encodeURIComponent(number)}/`);
}

// --- analysis ------------------------------------------------------------------------

/** POST /games/{id}/analysis/ {seat?}: ask for a seat's analysis (200: it exists; 202: queued). */
export function requestAnalysis(id, body = {}) {
  return call("POST", gamePath(id, "analysis"), { body });
}

/** GET /games/{id}/analysis/?seat=: its progress, then its result. */
export function getAnalysis(id, params = {}) {
  return call("GET", `${gamePath(id, "analysis")}${query(params)}`);
}

/** GET /games/{id}/hint/: the best move for your turn (practice games). */
export function getHint(id) {
  return call("GET", gamePath(id, "hint"));
}

// --- finding a game: quick play and challenges ---------------------------------------

/** GET /presets/: quick play's rulesets. */
export function listPresets() {
  return call("GET", `${API_ROOT}/presets/`);
}

/** POST /seeks/ {players, preset, rated, turn_time_limit, wait_seconds, on_timeout, bot_level}: a Seek. */
export function createSeek(body) {
  return call("POST", `${API_ROOT}/seeks/`, { body });
}

/** DELETE /seeks/{id}/: cancel my waiting seek. */
export function cancelSeek(id) {
  return call("DELETE", `${API_ROOT}/seeks/${encodeURIComponent(id)}/`);
}

/** POST /challenges/ {invitees, ruleset, rated, turn_time_limit, bot_strategy, expires_in}: a Challenge. */
export function createChallenge(body) {
  return call("POST", `${API_ROOT}/challenges/`, { body });
}

export function acceptChallenge(id) {
  return call("POST", `${API_ROOT}/challenges/${encodeURIComponent(id)}/accept/`);
}

export function declineChallenge(id) {
  return call("POST", `${API_ROOT}/challenges/${encodeURIComponent(id)}/decline/`);
}

/** DELETE /challenges/{id}/: cancel a challenge I sent. */
export function cancelChallenge(id) {
  return call("DELETE", `${API_ROOT}/challenges/${encodeURIComponent(id)}/`);
}

// --- where players stand: leaderboard, profiles, the bot ladder ------------------------

/** GET /leaderboard/ with {pool, kind, limit, offset} or a page's `next` query ({..., cursor}): a page of LeaderboardEntry. */
export function getLeaderboard(params = {}) {
  return call("GET", `${API_ROOT}/leaderboard/${query(params)}`);
}

/** GET /players/{username}/: {id, username, is_bot}. */
export function getPlayer(username) {
  return call("GET", `${API_ROOT}/players/${encodeURIComponent(username)}/`);
}

/** GET /players/{username}/ratings/: PlayerRatings (pools with history and recent matches). */
export function getPlayerRatings(username) {
  return call("GET", `${API_ROOT}/players/${encodeURIComponent(username)}/ratings/`);
}

/** GET /games/?player=<name>: the player's finished games, a page. */
export function listPlayerGames(username, params = {}) {
  return listGames({ ...params, player: username });
}

/** GET /ladder/: the bot ladder's participants and schedule. */
export function getLadder() {
  return call("GET", `${API_ROOT}/ladder/`);
}

// --- the table chat, reports, warnings and sanctions (webtalk) -----------------------

/** GET /games/{id}/chat/ with {channel, after, limit}: a ChatPage {messages, has_more}. */
export function listChat(id, params) {
  return call("GET", `${gamePath(id, "chat")}${query(params)}`);
}

/** POST /games/{id}/chat/ {channel, text}: the ChatMessage written. */
export function postChat(id, body) {
  return call("POST", gamePath(id, "chat"), { body });
}

/** POST /reports/ {account | game | message, reason, text}: the Report made. */
export function createReport(body) {
  return call("POST", `${API_ROOT}/reports/`, { body });
}

/** GET /me/warnings/: a page of my warnings, newest first. */
export function listWarnings(params = {}) {
  return call("GET", `${API_ROOT}/me/warnings/${query(params)}`);
}

/** POST /me/warnings/{id}/acknowledge/: the Warning, read. */
export function acknowledgeWarning(warningId) {
  return call("POST", `${API_ROOT}/me/warnings/${encodeURIComponent(warningId)}/acknowledge/`);
}

/** GET /me/sanctions/: a page of my mutes and suspensions, newest first. */
export function listSanctions(params = {}) {
  return call("GET", `${API_ROOT}/me/sanctions/${query(params)}`);
}

/** POST /me/sanctions/{id}/appeal/ {text}: the Appeal made (one per sanction in force). */
export function appealSanction(sanctionId, text) {
  return call("POST", `${API_ROOT}/me/sanctions/${encodeURIComponent(sanctionId)}/appeal/`, { body: { text } });
}

/** POST /appeals/ {appeal_token, text}: a suspended account's appeal, with the token of its
 * log-in refusal (no session). The Appeal made. */
export function appealWithToken(appealToken, text) {
  return call("POST", `${API_ROOT}/appeals/`, { body: { appeal_token: appealToken, text }, auth: false });
}

// --- your account (webtalk) ------------------------------------------------------------

/** GET /tokens/: a page of my signed-in devices (tokens; `current` marks this one). */
export function listTokens(params = {}) {
  return call("GET", `${API_ROOT}/tokens/${query(params)}`);
}

/** DELETE /tokens/{id}/: sign a device out. */
export function revokeToken(tokenId) {
  return call("DELETE", `${API_ROOT}/tokens/${encodeURIComponent(tokenId)}/`);
}

/** GET /me/second-factor/: {enabled, pending, required_by_admin, confirmed_at, recovery_codes_left}. */
export function secondFactor() {
  return call("GET", `${API_ROOT}/me/second-factor/`);
}

/** POST /me/second-factor/ {password}: {secret, otpauth_uri} for an authenticator app. */
export function setUpSecondFactor(password) {
  return call("POST", `${API_ROOT}/me/second-factor/`, { body: { password } });
}

/** POST /me/second-factor/confirm/ {code}: {recovery_codes}, shown this once. */
export function confirmSecondFactor(code) {
  return call("POST", `${API_ROOT}/me/second-factor/confirm/`, { body: { code } });
}

/** POST /me/second-factor/disable/ {password, code}: the second factor is off. */
export function disableSecondFactor(password, code) {
  return call("POST", `${API_ROOT}/me/second-factor/disable/`, { body: { password, code } });
}

/** POST /me/password/ {current_password, new_password, revoke_other_tokens}: {revoked_tokens}. */
export function changePassword(body) {
  return call("POST", `${API_ROOT}/me/password/`, { body });
}

/** POST /me/delete/ {password}: the account is deleted; this browser is signed out. */
export async function deleteAccount(password) {
  await call("POST", `${API_ROOT}/me/delete/`, { body: { password } });
  forgetSession();
}

/** GET /me/data/: everything the server holds about my account (AccountData). */
export function downloadMyData() {
  return call("GET", `${API_ROOT}/me/data/`);
}
