/**
 * Typed stream readers: a Server-Sent Events stream of the server
 * (`GET /games/{game_id}/stream/`, `GET /me/stream/`) as the contract's frame union,
 * followed across reconnections with `Last-Event-ID`.
 *
 * The contract declares each stream's frame twice: `x-itemSchema` (`GameStreamFrame`,
 * as sent: `data` is JSON text) and `x-itemMessageSchema` (`GameStreamMessage`,
 * `AccountStreamMessage`: `data` parsed). A reader yields the second, a union in which
 * `event` narrows `data`:
 *
 *     for await (const frame of readStream<GameStreamMessage>(url, { headers: { Authorization } })) {
 *       if (frame.event === "snapshot") frame.data.game.seq;   // GameView
 *       else if (frame.event === "end") break;                  // GameStreamEndData
 *       else if (frame.event === "chat_message") frame.data.text; // ChatMessage
 *       else frame.data.data;                                   // Event (its EventData by `type`)
 *     }
 *
 * The one unchecked step is JSON text taken for the schema the contract names for it.
 * `SseParser` follows the WHATWG rules (what a browser's EventSource reads): `field:
 * value` lines, a blank line ends a frame, `:` starts a comment, a block without
 * `data:` (the lone `retry:` line) is no frame; a frame keeps its own `id:` (none: no
 * `id` member), `lastEventId` the stream's.
 */

import type { components } from "./openapi.js";

export type GameStreamMessage = components["schemas"]["GameStreamMessage"];
export type AccountStreamMessage = components["schemas"]["AccountStreamMessage"];

/** What every frame union has: a name, maybe an id, its data. */
export interface StreamMessage {
  event: string;
  id?: string;
  data: unknown;
}

/** One frame as read: its name ("message" if none), its own id, its data text. */
export interface SseFrame {
  event: string;
  id?: string;
  data: string;
}

export class SseParser {
  retry: number | undefined; // the last `retry:` the server sent, in ms
  lastEventId: string; // what to send as Last-Event-ID on reconnect
  comments = 0; // `: keep-alive` and friends
  private pending = "";
  private lastWasCr = false;
  private event = "";
  private id: string | undefined;
  private data: string[] = [];

  constructor(lastEventId = "") {
    this.lastEventId = lastEventId;
  }

  /** The frames a chunk of text completes (a frame or a line may span chunks). */
  feed(chunk: string): SseFrame[] {
    const frames: SseFrame[] = [];
    let text = this.pending + chunk;
    if (this.lastWasCr && text.startsWith("\n")) text = text.slice(1); // a CRLF split between chunks
    const lines = text.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? "";
    this.lastWasCr = text.endsWith("\r");
    for (const line of lines) {
      const frame = this.line(line);
      if (frame !== undefined) frames.push(frame);
    }
    return frames;
  }

  private line(line: string): SseFrame | undefined {
    if (line === "") {
      const frame: SseFrame | undefined =
        this.data.length > 0 ? { event: this.event || "message", data: this.data.join("\n") } : undefined;
      if (frame !== undefined && this.id !== undefined) frame.id = this.id;
      this.event = "";
      this.id = undefined;
      this.data = [];
      return frame;
    }
    if (line.startsWith(":")) {
      this.comments += 1;
      return undefined;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.data.push(value);
    else if (name === "event") this.event = value;
    else if (name === "id" && !value.includes("\0")) {
      this.id = value;
      this.lastEventId = value;
    } else if (name === "retry" && /^[0-9]+$/.test(value)) this.retry = Number(value);
    return undefined;
  }
}

/** A frame with its data parsed, taken for the union M (the contract's x-itemMessageSchema). */
export function message<M extends StreamMessage>(frame: SseFrame): M {
  const parsed: StreamMessage = { event: frame.event, data: JSON.parse(frame.data) as unknown };
  if (frame.id !== undefined) parsed.id = frame.id;
  return parsed as M;
}

/** Every message of a whole stream's text (a recording). */
export function messagesOf<M extends StreamMessage>(text: string, parser = new SseParser()): M[] {
  return parser.feed(text).map((frame) => message<M>(frame));
}

export class StreamError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the stream answered ${status}: ${body.slice(0, 200)}`);
  }
}

export interface ReadOptions {
  /** Resume after this id (Last-Event-ID) on the first connection too. */
  lastEventId?: string;
  /** Sent with every connection (e.g. `Authorization: Bearer ...`). */
  headers?: Record<string, string>;
  /** Stops the reader (and the connection it holds). */
  signal?: AbortSignal;
  /** At most this many connections (undefined: no bound). */
  maxConnections?: number;
  /** The longest wait between two connections, in ms (the server's retry: doubles per failure up to it). */
  maxDelayMs?: number;
  /** Told each (re)connection: its number (1, 2, ...) and the Last-Event-ID it sends. */
  onConnect?: (connection: number, lastEventId: string) => void;
  fetch?: typeof fetch;
}

/**
 * The messages of the stream at `url`, across reconnections: a dropped connection or
 * one the server closes is resumed after the server's `retry:` delay with the last id
 * (nothing missed, nothing repeated; each connection starts with a snapshot). Ends
 * after an `end` frame or a `204` (the game was read to its end); any other answer
 * than 200 throws `StreamError` (a 429 is waited out as `Retry-After` says).
 */
export async function* readStream<M extends StreamMessage>(url: string | URL, options: ReadOptions = {}): AsyncGenerator<M> {
  const parser = new SseParser(options.lastEventId ?? "");
  const fetchStream = options.fetch ?? fetch;
  let connections = 0;
  let failures = 0;
  while (options.maxConnections === undefined || connections < options.maxConnections) {
    if (connections > 0) {
      const delay = Math.min(options.maxDelayMs ?? 30_000, (parser.retry ?? 1000) * 2 ** Math.max(failures - 1, 0));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    connections += 1;
    options.onConnect?.(connections, parser.lastEventId);
    const headers: Record<string, string> = { ...options.headers, Accept: "text/event-stream" };
    if (parser.lastEventId !== "") headers["Last-Event-ID"] = parser.lastEventId;
    let response: Response;
    try {
      response = await fetchStream(url, options.signal ? { headers, signal: options.signal } : { headers });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      failures += 1;
      continue;
    }
    if (response.status === 204) return;
    if (response.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get("Retry-After") ?? 1)));
      continue;
    }
    if (response.status !== 200 || response.body === null) throw new StreamError(response.status, await response.text());
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const frame of parser.feed(decoder.decode(value, { stream: true }))) {
          failures = 0;
          const parsed = message<M>(frame);
          yield parsed;
          if (parsed.event === "end") return;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      failures += 1; // dropped: resume
    } finally {
      reader.releaseLock();
      await response.body.cancel().catch(() => undefined);
    }
  }
}
