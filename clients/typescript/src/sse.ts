/**
 * Server-Sent Events text -> frames, as the WHATWG rules (a browser's EventSource)
 * read it: `field: value` lines, a blank line ends a frame, `:` starts a comment.
 * A frame keeps its own `id:` (undefined when it has none) rather than the stream's
 * last event id; a block without `data:` (the lone `retry:` line) is no frame.
 */

export interface SseFrame {
  event: string; // "message" when the frame names none
  id?: string;
  data: string;
  retry?: number;
}

export interface SseStream {
  frames: SseFrame[];
  retry: number | undefined; // the last `retry:` the server sent, in ms
  lastEventId: string; // what to send as Last-Event-ID on reconnect
  comments: number; // `: keep-alive` and friends
}

export function parseSse(text: string): SseStream {
  const stream: SseStream = { frames: [], retry: undefined, lastEventId: "", comments: 0 };
  let event = "";
  let id: string | undefined;
  let retry: number | undefined;
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) {
        const frame: SseFrame = { event: event || "message", data: data.join("\n") };
        if (id !== undefined) frame.id = id;
        if (retry !== undefined) frame.retry = retry;
        stream.frames.push(frame);
      }
      event = "";
      id = undefined;
      retry = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(":")) {
      stream.comments += 1;
      continue;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") data.push(value);
    else if (name === "event") event = value;
    else if (name === "id" && !value.includes("\0")) {
      id = value;
      stream.lastEventId = value;
    } else if (name === "retry" && /^[0-9]+$/.test(value)) {
      retry = Number(value);
      stream.retry = retry;
    }
  }
  return stream;
}
