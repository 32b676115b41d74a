import { Transform, type TransformCallback } from "node:stream";
import { lineHead } from "../session/message-head.js";
import { MAX_MESSAGE_BYTES_VARIABLE } from "../session/message-size.js";

/** A framing fault: the stream cannot be read on, so the connection is answered and closed. */
export interface FramingFault {
  /** JSON-RPC 2.0 code for the answer: -32700 (parse error) or -32600 (invalid request: size). */
  code: number;
  /** What was wrong, for the answer and the stderr line. */
  message: string;
  /** Frames passed on before the fault: they are answered before the connection closes. */
  framesBefore: number;
}

/** What the guard reports besides faults. */
export interface FramingEvents {
  /** A fault: the stream cannot be read on (see {@link FramingGuard}). */
  onFault: (fault: FramingFault) => void;
  /**
   * A frame with `Content-Length: 0`: perfectly delimited but no message, so it is answered as
   * an invalid request (JSON-RPC 2.0 §5, id null) and the connection goes on.
   */
  onEmptyFrame: () => void;
  /**
   * The input ended after `framesPassed` frames were passed on. The reader sees the end only once
   * `done` is called: the connection answers those frames' requests first, since vscode-jsonrpc
   * drops what it has not handled yet when its reader closes.
   */
  onEnd: (framesPassed: number, done: () => void) => void;
  /**
   * The client's answer to request `id` of ours was over the limit: it was dropped, and an error
   * answer to that request (`reason`) passed on in its place (see {@link FramingGuard}).
   */
  onAnswerTooLarge: (id: string, reason: string) => void;
}

/** Bytes of an oversized body read to tell an answer from a request (session/message-head.ts). */
const HEAD_BYTES = 1_024;

/** A body over the limit being read past: its length, what is left, and its first bytes. */
interface Oversized {
  length: number;
  left: number;
  head: Buffer;
  /** The id of our request it answers, once its head shows that. */
  answers?: string;
}

/** Longest header line accepted (bytes); real headers are ~40. */
const MAX_HEADER_LINE_BYTES = 1_024;
/** A header line so far: a field name, then optionally `:` and anything; or the blank line's CR. */
const HEADER_LINE_SO_FAR = /^(?:[A-Za-z0-9-]+(?::[^\n]*)?|\r)?$/;

/**
 * Checks the base protocol framing of the SDK server (`Content-Length: N\r\n\r\n` + N bytes, as
 * in LSP, which vscode-jsonrpc reads) before vscode-jsonrpc sees the bytes. vscode-jsonrpc cannot
 * recover from a bad header: it skips the header, then reads the bytes after it as the next
 * header, and a client waits forever (issue 11). It cannot resynchronise reliably either, since
 * a body may contain anything. So at the first fault, the connection is answered with a JSON-RPC
 * error (id null) and closed: `onFault` is called once and nothing more is passed on; the frames
 * passed on before it are still answered first.
 *
 * Faults: a header line that is not `Name: value` or that ends in a bare LF; no, a repeated, a
 * non-numeric or negative `Content-Length`; (`Content-Length: 0` is no fault: see
 * {@link FramingEvents.onEmptyFrame}) a length over `maxMessageBytes`, refused once the
 * body's first bytes show it is not the client's answer to a request of ours (at most 1 KiB of it
 * is read; none of it is buffered beyond that); a body shorter than its length shows as the next
 * header being malformed. Valid frames pass on with a canonical header; body bytes pass on
 * as they arrive (vscode-jsonrpc buffers one body, at most `maxMessageBytes`).
 *
 * An answer of the client's over the limit (`result` or `error` and an `id` before its bulk) is
 * no fault: its bytes are read past, and an error answer to our request with that id is passed on
 * in its place, `-32600` "the client's answer was N bytes; the limit is L bytes
 * (TURNLOOP_MAX_MESSAGE_BYTES)", so that request fails with it and the connection goes on.
 */
export class FramingGuard extends Transform {
  private line = "";
  private contentLength: number | undefined;
  private bodyBytesLeft = 0;
  private oversized: Oversized | undefined;
  private failed = false;
  /** Frames passed on so far. */
  private framesPassed = 0;

  constructor(
    private readonly maxMessageBytes: number,
    private readonly events: FramingEvents,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let offset = 0;
    while (offset < chunk.length && !this.failed) {
      if (this.oversized !== undefined) {
        offset = this.readPast(this.oversized, chunk, offset);
        continue;
      }
      if (this.bodyBytesLeft > 0) {
        const take = Math.min(this.bodyBytesLeft, chunk.length - offset);
        this.push(chunk.subarray(offset, offset + take));
        this.bodyBytesLeft -= take;
        offset += take;
        continue;
      }
      const newline = chunk.indexOf(0x0a, offset);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.line += chunk.toString("latin1", offset, end);
      offset = end;
      if (newline === -1) {
        this.checkPartialLine();
      } else {
        this.endLine();
      }
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.events.onEnd(this.framesPassed, () => done());
  }

  private checkPartialLine(): void {
    if (this.line.length > MAX_HEADER_LINE_BYTES) {
      this.fail(-32700, `a header line longer than ${MAX_HEADER_LINE_BYTES} bytes`);
    } else if (!HEADER_LINE_SO_FAR.test(this.line)) {
      this.fail(-32700, `a malformed header line ${preview(this.line)}`);
    }
  }

  private endLine(): void {
    const line = this.line;
    this.line = "";
    if (!line.endsWith("\r\n")) {
      this.fail(-32700, `a header line ending in a bare LF ${preview(line)}; use CRLF`);
      return;
    }
    if (line === "\r\n") {
      this.endHeader();
      return;
    }
    const match = /^([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*\r\n$/.exec(line);
    if (match === null) {
      this.fail(-32700, `a malformed header line ${preview(line)}`);
      return;
    }
    const [, name = "", value = ""] = match;
    if (name.toLowerCase() !== "content-length") {
      return; // Content-Type (utf-8 is all vscode-jsonrpc reads) and unknown fields.
    }
    if (this.contentLength !== undefined) {
      this.fail(-32700, "two Content-Length headers in one frame");
    } else if (!/^\d+$/.test(value)) {
      this.fail(-32700, `Content-Length ${preview(value)} is not a positive whole number`);
    } else {
      this.contentLength = Number(value);
    }
  }

  private endHeader(): void {
    if (this.contentLength === undefined) {
      this.fail(-32700, "a frame header without Content-Length");
      return;
    }
    if (this.contentLength === 0) {
      this.contentLength = undefined;
      this.events.onEmptyFrame();
      return;
    }
    const length = this.contentLength;
    this.contentLength = undefined;
    if (length > this.maxMessageBytes) {
      this.oversized = { length, left: length, head: Buffer.alloc(0) };
      return;
    }
    this.framesPassed++;
    this.push(`Content-Length: ${length}\r\n\r\n`);
    this.bodyBytesLeft = length;
  }

  /** Reads past an oversized body from `offset` (see the class comment); returns the new offset. */
  private readPast(body: Oversized, chunk: Buffer, offset: number): number {
    const take = Math.min(body.left, chunk.length - offset);
    if (body.answers === undefined && body.head.length < HEAD_BYTES) {
      const piece = chunk.subarray(offset, offset + Math.min(take, HEAD_BYTES - body.head.length));
      body.head = Buffer.concat([body.head, piece]);
    }
    body.left -= take;
    const complete = body.left === 0 || body.head.length >= HEAD_BYTES;
    const head =
      body.answers === undefined ? lineHead(body.head.toString("utf8"), complete) : undefined;
    if (head?.kind === "response" && head.id !== undefined) {
      body.answers = head.id;
    } else if (head !== undefined && (head.kind === "request" || !head.open)) {
      this.oversized = undefined;
      this.fail(
        -32600,
        `a ${body.length}-byte message is larger than the limit of ${this.maxMessageBytes} bytes (${MAX_MESSAGE_BYTES_VARIABLE})`,
      );
      return offset + take;
    }
    if (body.left === 0 && body.answers !== undefined) {
      this.oversized = undefined;
      this.answerTooLarge(body.answers, body.length);
    }
    return offset + take;
  }

  /** Passes on an error answer to our request `id` in place of the client's oversized one. */
  private answerTooLarge(id: string, bytes: number): void {
    const reason = `the client's answer was ${bytes} bytes; the limit is ${this.maxMessageBytes} bytes (${MAX_MESSAGE_BYTES_VARIABLE})`;
    this.events.onAnswerTooLarge(id, reason);
    // `id` is JSON text taken from the message itself: a number or a string.
    const error = { code: -32600, message: reason };
    const body = Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(error)}}`);
    this.framesPassed++;
    this.push(`Content-Length: ${body.length}\r\n\r\n`);
    this.push(body);
  }

  private fail(code: number, problem: string): void {
    this.failed = true;
    this.line = "";
    // Nothing more is passed on; the connection answers, then closes itself and the transport.
    this.events.onFault({
      code,
      message: `unreadable frame: ${problem}`,
      framesBefore: this.framesPassed,
    });
  }
}

/** A short, quoted, printable excerpt of what was received. */
function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
