import { createParser } from "eventsource-parser";
import { LockKeepingStream } from "./lock-keeping-stream.js";
import { DONE, type ValueSource } from "./value-transform.js";

/**
 * Parses a byte stream as SSE, as it arrives, and gives back the bytes of each event with its
 * `data` mapped, `event` and `id` kept: bytes in, the bytes of the events they complete out. It
 * decodes and encodes itself, and runs inside the response's body stream (http-response.ts,
 * `bodyStream`, through openai-chat-quirks.ts): three chained streams cost a third of the relay's
 * throughput (bench/RESULTS.md), and a `TransformStream` of its own was one web stream stage more
 * per model request (bench/notes/server.md, session 14).
 *
 * Most streams send each event as one `data:` line ended by a blank line (`\n\n`). Such events
 * are read here directly, and while `mapData` returns their data unchanged (the same string) the
 * text they came in is passed on as it was, without parsing and writing each event again: that
 * was about a twentieth of the relay's allocations (bench/notes/targets.md, "Provider stream,
 * round 3, session 7"). Every other event (more lines, `event:`/`id:` fields, comments, CR line
 * ends) goes through `eventsource-parser` (any line ends, CR/LF pairs split across chunks,
 * multi-line `data:`) and is written in the canonical form. Either way `mapData` sees every event's data once, in order, as the parser reads it.
 */
export function sseEventBytes(mapData: (data: string) => string): {
  /** The bytes of the events `bytes` completes, or undefined when it completes none. */
  take(bytes: Uint8Array): MappedEventBytes | undefined;
  /** At the body's end: what is left. An event without its blank line is incomplete: dropped, as SSE says. */
  end(): MappedEventBytes | undefined;
} {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const events = new SseEventMapper(mapData);
  const encoded = ({ text, data }: MappedEvents) =>
    text === "" ? undefined : new MappedEventBytes(encoder.encode(text), data);
  return {
    take: (bytes) => encoded(events.take(decoder.decode(bytes, { stream: true }))),
    end: () => encoded(events.take(decoder.decode())),
  };
}

/**
 * The bytes {@link sseEventBytes} passes on, whole events, with the `data` parsing them gives
 * (each event's, mapped, in order): {@link jsonEventStream} takes the data rather than decode the
 * bytes and parse them as SSE a second time. Any other reader reads the bytes. What a typed
 * array method makes of it (`subarray`, `slice`) is a plain `Uint8Array`.
 */
export class MappedEventBytes extends Uint8Array {
  static get [Symbol.species]() {
    return Uint8Array;
  }

  constructor(
    bytes: Uint8Array<ArrayBuffer>,
    readonly eventData: readonly string[],
  ) {
    super(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** The text of the events one piece completed, and their mapped data in order. */
interface MappedEvents {
  text: string;
  data: string[];
}

/**
 * The text side of {@link sseEventBytes}: takes decoded text as it arrives and returns the
 * text of the events it completed, mapped. Text after the last complete event waits for the rest.
 */
class SseEventMapper {
  readonly #mapData: (data: string) => string;
  readonly #parser: ReturnType<typeof createParser>;
  /** Text of the event not yet ended by a blank line (line feeds only: see {@link take}). */
  #pending = "";
  /**
   * Whether {@link #pending} ends in a line feed, kept apart: `#pending` is a rope while an event
   * arrives, and reading its last character flattens (copies) it, once per network chunk, which
   * made one 30 MB event cost minutes of CPU (quadratic in its size).
   */
  #pendingEndsInLineFeed = false;
  /** False once a CR was seen: from then on every byte goes through the parser. */
  #lineFeedsOnly = true;
  #output = "";
  #data: string[] = [];

  constructor(mapData: (data: string) => string) {
    this.#mapData = mapData;
    this.#parser = createParser({
      onEvent: (event) => {
        const mapped = this.#mapData(event.data);
        this.#data.push(mapped);
        this.#output += writtenEvent(event.event, event.id, mapped);
      },
    });
  }

  /** The mapped text of the events `text` completes, and their mapped data. */
  take(text: string): MappedEvents {
    if (!this.#lineFeedsOnly || text.includes("\r")) {
      // CR line ends (alone or in pairs, perhaps split across chunks): the parser's business.
      // It holds no partial event here: only whole events were fed to it before.
      this.#lineFeedsOnly = false;
      this.#parser.feed(this.#pending + text);
      this.#pending = "";
    } else if (
      text.indexOf("\n\n") === -1 &&
      !(text.charCodeAt(0) === LINE_FEED && this.#pendingEndsInLineFeed)
    ) {
      // No blank line in the new text: the event goes on (a rope; joined once it ends).
      this.#pending += text;
      if (text !== "") {
        this.#pendingEndsInLineFeed = text.charCodeAt(text.length - 1) === LINE_FEED;
      }
    } else {
      const joined = this.#pending + text;
      const end = joined.lastIndexOf("\n\n") + 2;
      this.#pending = joined.slice(end);
      this.#pendingEndsInLineFeed = this.#pending.endsWith("\n");
      this.#mapEvents(joined, end);
    }
    const taken = { text: this.#output, data: this.#data };
    this.#output = "";
    this.#data = [];
    return taken;
  }

  /**
   * Maps the events of `text` before `end` (each ended by a blank line): one-line `data:` events
   * directly, the text of a run of unchanged ones copied as it is; others through the parser,
   * which holds no partial event between them.
   */
  #mapEvents(text: string, end: number): void {
    let copiedUpTo = 0;
    for (let start = 0; start < end; ) {
      if (text.charCodeAt(start) === LINE_FEED) {
        // A blank line with no event before it (three line feeds in a row): copied as it is.
        start += 1;
        continue;
      }
      const eventEnd = text.indexOf("\n\n", start);
      const data = oneLineData(text, start, eventEnd);
      const mapped = data === undefined ? undefined : this.#mapData(data);
      if (mapped !== undefined) {
        this.#data.push(mapped);
      }
      if (data === undefined || mapped !== data) {
        this.#output += text.slice(copiedUpTo, start);
        if (mapped === undefined) {
          this.#parser.feed(text.slice(start, eventEnd + 2));
        } else {
          this.#output += writtenEvent(undefined, undefined, mapped);
        }
        copiedUpTo = eventEnd + 2;
      }
      start = eventEnd + 2;
    }
    this.#output += text.slice(copiedUpTo, end);
  }
}

/**
 * The data of the event in `text` from `start` to `end` (a blank line follows) when the event is
 * one `data:` line, as SSE reads it (one space after the colon dropped); otherwise undefined.
 */
function oneLineData(text: string, start: number, end: number): string | undefined {
  if (!text.startsWith("data:", start) || text.indexOf("\n", start) !== end) {
    return undefined;
  }
  return text.slice(text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end);
}

const SPACE = 0x20;
const LINE_FEED = 0x0a;

/** An event in SSE's canonical form, its data split into `data:` lines. */
function writtenEvent(name: string | undefined, id: string | undefined, data: string): string {
  const nameLine = name === undefined ? "" : `event: ${name}\n`;
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  const dataLines = data.includes("\n")
    ? data
        .split("\n")
        .map((line) => `data: ${line}\n`)
        .join("")
    : `data: ${data}\n`;
  return `${nameLine}${idLine}${dataLines}\n`;
}

/**
 * The AI SDK's `parseJsonEventStream` (`@ai-sdk/provider-utils`) in one web stream stage: the
 * response's bytes decoded as UTF-8, parsed as SSE, and each event's `data` but `[DONE]` handed
 * to `parse` (the SDK's `safeParseJSON` with the model's chunk schema), its results passed on in
 * order. The SDK pipes the body through three stages for this (`TextDecoderStream`,
 * `EventSourceParserStream`, then its parsing transform); each stage is a `TransformStream` of
 * three web stream objects, each made transferable on Node 20 (a native object each), with a
 * promise hop per chunk and per event: about a fifth of the server's main-thread time per model
 * request went to web streams (bench/notes/server.md, session 14). scripts/bundle.mjs gives the
 * bundled provider-utils this function in place of its own; what comes out is the same, value by
 * value (test/llm/json-event-stream.test.ts compares both on the same bytes).
 *
 * As the SDK's stages: a byte order mark at the start is dropped and bad UTF-8 becomes U+FFFD
 * (`TextDecoderStream`'s defaults); events are read by `eventsource-parser` (the SDK's parser)
 * with its defaults (as the SDK makes its `EventSourceParserStream`), so an event left without its
 * blank line at the end is dropped and a malformed line (a bad `retry:`) is ignored. A chunk that
 * is {@link MappedEventBytes} (an OpenAI-compatible body, openai-chat-quirks.ts) is whole events
 * parsed already: its data is taken as it is, not decoded and parsed again.
 *
 * The stage reads the body with a reader it never releases, and the stream it returns is a
 * {@link LockKeepingStream}, so that neither it nor the provider model's stage after it releases
 * a lock (what a reader of the result sees, ends and failures included, is as through the SDK's
 * pipe: test/llm/json-event-stream.test.ts). Piped into that stage, the parsed values are written
 * to it as they are parsed, without passing through this stream's own queue.
 *
 * `readFailure` maps an error of reading `stream` to the error the result fails with (default: the
 * error itself). The bundle's provider-utils hands it the response's body with the mapping of its
 * `wrapResponseBodyStream` (scripts/provider-utils-as-bundled.mjs, `bodyReadOnce`), instead of that
 * wrapper's stream of its own.
 */
export function jsonEventStream<T>(
  stream: ReadableStream<Uint8Array>,
  parse: (text: string) => Promise<T>,
  readFailure: (error: unknown) => unknown = (error) => error,
): ReadableStream<T> {
  const decoder = new TextDecoder();
  let eventData: string[] = [];
  const parser = createParser({
    onEvent: (event) => {
      eventData.push(event.data);
    },
  });
  const reader = stream.getReader();
  /** The data of the events read and not yet parsed, from {@link taken}[{@link next}] on. */
  let taken: readonly string[] = [];
  let next = 0;
  let ended = false;
  // One value per call, parsed as it is taken: a read of 64 KiB completes some 300 events of a
  // streamed answer, and parsed all at once they outlived the young generation while the loop
  // handled them one by one (bench/notes/memory30.md). An event's value is `parse`'s own promise.
  const nextValue = (): Promise<T | typeof DONE> => {
    while (next < taken.length) {
      const data = taken[next] as string;
      next += 1;
      if (data !== "[DONE]") {
        return parse(data);
      }
    }
    return ended ? Promise.resolve(DONE) : readThenNext();
  };
  const readThenNext = async (): Promise<T | typeof DONE> => {
    let read: Awaited<ReturnType<typeof reader.read>>;
    try {
      read = await reader.read();
    } catch (error) {
      throw readFailure(error);
    }
    const { done, value } = read;
    ended = done;
    next = 0;
    if (value instanceof MappedEventBytes) {
      // Whole events, parsed already (openai-chat-quirks.ts): the parser holds nothing.
      taken = value.eventData;
    } else {
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      taken = eventData;
      eventData = [];
    }
    return nextValue();
  };
  const source: ValueSource<T> = {
    next: nextValue,
    cancel: (reason) => reader.cancel(reason),
  };
  return new LockKeepingStream<T>(source);
}
