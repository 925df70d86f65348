// Server-Sent Events over fetch (EventSource cannot send the Authorization header).
//
//   const stream = openStream("/api/v1/games/7/stream/", {
//     onFrame(type, data, id) {},   // data: the frame's JSON (the raw text if it is not JSON)
//     onStatus(status) {},          // "open" | "reconnecting" | "closed"
//     onError(error) {},            // optional: an ApiError that closed the stream (401, 404...)
//     lastEventId: 41,              // optional: resume after this event
//   });
//   stream.close();
//
// As EventSource does: reconnects after the server's `retry:` (2 s by default) with
// `Last-Event-ID` set to the last `id:` received, and stops for good on
// 204 No Content. Unlike it: stops after an `end` frame (the game is over), and on
// an error answer (401, 403, 404 ...), which goes to onError. A network failure or
// a 5xx/429 is retried, waiting longer each time (up to 30 s).

import { ApiError, openStreamResponse } from "./api.js";

const DEFAULT_RETRY_MS = 2000;
const MAX_BACKOFF_MS = 30000;

function parseData(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function openStream(path, { onFrame = () => {}, onStatus = () => {}, onError = null, lastEventId = null } = {}) {
  let closed = false;
  let controller = null;
  let timer = null;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  let lastId = lastEventId === null || lastEventId === undefined ? null : String(lastEventId);
  let status = null;

  const setStatus = (next) => {
    if (status !== next) {
      status = next;
      try {
        onStatus(next);
      } catch (error) {
        console.error(error);
      }
    }
  };

  const finish = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    if (controller) controller.abort();
    setStatus("closed");
  };

  const scheduleReconnect = () => {
    if (closed) return;
    setStatus("reconnecting");
    const wait = failures === 0 ? retryMs : Math.min(MAX_BACKOFF_MS, retryMs * 2 ** failures);
    timer = setTimeout(connect, wait);
  };

  async function read(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let type = "";
    let data = [];
    let id = null;
    let ended = false;
    const dispatch = () => {
      if (data.length === 0) {
        type = "";
        id = null;
        return;
      }
      if (id !== null) lastId = id;
      const frameType = type || "message";
      const frameData = parseData(data.join("\n"));
      const frameId = id !== null ? id : lastId;
      type = "";
      data = [];
      id = null;
      if (frameType === "end") ended = true;
      try {
        onFrame(frameType, frameData, frameId);
      } catch (error) {
        console.error(error);
      }
    };
    const line = (text) => {
      if (text === "") return dispatch();
      if (text.startsWith(":")) return undefined; // a comment (keep-alive)
      const colon = text.indexOf(":");
      const field = colon === -1 ? text : text.slice(0, colon);
      let value = colon === -1 ? "" : text.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") type = value;
      else if (field === "data") data.push(value);
      else if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
      return undefined;
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let match;
      while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
        // a lone \r at the end may be the first half of \r\n: wait for more
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (closed) return true;
      }
      if (ended) return true;
    }
    return ended;
  }

  async function connect() {
    if (closed) return;
    controller = new AbortController();
    let response;
    try {
      response = await openStreamResponse(path, { lastEventId: lastId, signal: controller.signal });
    } catch (error) {
      if (closed || (error && error.name === "AbortError")) return;
      const retriable = !(error instanceof ApiError) || error.status === 0 || error.status === 429 || error.status >= 500;
      if (!retriable) {
        if (onError) onError(error);
        finish();
        return;
      }
      failures += 1;
      scheduleReconnect();
      return;
    }
    if (response === null) {
      finish(); // 204: nothing more will come
      return;
    }
    failures = 0;
    setStatus("open");
    let ended = false;
    try {
      ended = await read(response);
    } catch (error) {
      if (closed || (error && error.name === "AbortError")) return;
      failures += 1;
    }
    if (ended) finish();
    else scheduleReconnect();
  }

  connect();
  return { close: finish };
}
