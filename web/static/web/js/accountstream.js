// The account stream (GET /me/stream/), one per page while signed in: the lobby,
// quick play and the challenge notices all listen to it (no polling).
//
//   startAccountStream()            app.js: opens it (and re-opens it on a new session)
//   onAccountFrame((type, data) => {})  -> an unsubscribe function; the last snapshot
//                                        is replayed to a new listener at once
//   onAccountStatus((status) => {}) -> "connecting" | "open" | "reconnecting" | "closed"
//
// Frames: snapshot {games, challenges, seeks, tables, warnings}; game_started,
// your_turn, game_over; challenge_*; seek_*; table_open, table_closed (the lobby's
// open tables); warning_* (see openapi.yaml, AccountStreamFrame).

import * as api from "./api.js";
import { openStream } from "./sse.js";

const frameListeners = new Set();
const statusListeners = new Set();
let stream = null;
let owner = null; // the username the stream was opened for
let snapshot = null;
let status = "closed";

function setStatus(next) {
  status = next;
  for (const listener of statusListeners) listener(next);
}

function open() {
  const account = api.currentUser();
  if (stream && (!account || account.username !== owner)) {
    stream.close();
    stream = null;
    snapshot = null;
    setStatus("closed");
  }
  if (!account || stream) return;
  owner = account.username;
  setStatus("connecting");
  stream = openStream("/api/v1/me/stream/", {
    onFrame(type, data) {
      if (type === "snapshot") snapshot = data;
      for (const listener of frameListeners) {
        try {
          listener(type, data);
        } catch (error) {
          console.error(error);
        }
      }
    },
    onStatus: setStatus,
    onError(error) {
      if (error.status !== 401) console.error(error);
    },
  });
}

function close() {
  if (stream) stream.close();
  stream = null;
  snapshot = null;
  setStatus("closed");
}

export function startAccountStream() {
  open();
  window.addEventListener("cf:session", open);
  // Leaving the page (or kept in the back-forward cache): the stream's connection is
  // given back at once, not held until the server next writes; back again, it reopens.
  window.addEventListener("pagehide", close);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) open();
  });
}

export function onAccountFrame(listener) {
  frameListeners.add(listener);
  if (snapshot) listener("snapshot", snapshot);
  return () => frameListeners.delete(listener);
}

export function onAccountStatus(listener) {
  statusListeners.add(listener);
  listener(status);
  return () => statusListeners.delete(listener);
}
