import { ATTACHMENT_OPENINGS } from "../session/prompt-attachments.js";
import { decodeFileBytes } from "../tools/text-decoding.js";
import type { StdinBytes } from "./prompt-input.js";

/** Piped input longer than this is cut (bytes of UTF-8): the head and the tail are kept. */
export const STDIN_MAX_BYTES = 100 * 1024;

/**
 * Piped input that was cut: how many bytes it had, how many of them were sent, and whether both
 * ends sent are whole lines (false when a line longer than half of {@link STDIN_MAX_BYTES} at
 * either end was cut inside: no line end to cut at).
 */
export interface StdinCut {
  total: number;
  kept: number;
  wholeLines: boolean;
}

/** A prompt with its piped input attached (`cut` when only its ends were), or why not. */
export type AttachedPrompt =
  | {
      ok: true;
      text: string;
      cut?: StdinCut;
      /** How many bytes of piped stdin were attached to a prompt given as text; absent: none. */
      attached?: number;
    }
  | { ok: false; message: string };

/**
 * Piped bytes as text, decoded as the `view` tool and `@file` decode files (UTF-8, UTF-16 with a
 * byte order mark, else windows-1252), or a message refusing them when they are not text (NUL
 * bytes, a known binary signature, mostly control characters): binary data would reach the
 * model as mojibake.
 */
export function stdinText(
  bytes: Buffer,
): { ok: true; text: string } | { ok: false; message: string } {
  const decoded = decodeFileBytes(bytes);
  if (decoded.kind === "text") {
    return { ok: true, text: decoded.text };
  }
  const type = decoded.mediaType === undefined ? "" : ` (${decoded.mediaType})`;
  return {
    ok: false,
    message: `stdin is binary data${type}, not text; nothing was sent. Pipe text, or name the file in the prompt for the model to view.`,
  };
}

/**
 * The prompt with piped text after it as an attachment block. Text past {@link STDIN_MAX_BYTES}
 * keeps its first and last halves, each cut at a line end ({@link headLines}, {@link tailLines})
 * unless a line longer than a half is cut inside, with a note saying how much was cut.
 */
export function withStdinAttachment(prompt: string, piped: string): AttachedPrompt {
  const bytes = Buffer.byteLength(piped);
  if (bytes <= STDIN_MAX_BYTES) {
    return { ok: true, text: attachmentBlock(prompt, piped, bytes), attached: bytes };
  }
  const encoded = Buffer.from(piped, "utf8");
  const half = STDIN_MAX_BYTES / 2;
  const head = headLines(encoded.subarray(0, half));
  const tail = tailLines(encoded.subarray(bytes - half));
  const kept = head.bytes.length + tail.bytes.length;
  const body = cutBody(head.bytes.toString("utf8"), tail.bytes.toString("utf8"), bytes, kept);
  const wholeLines = head.whole && tail.whole;
  return {
    ok: true,
    text: attachmentBlock(prompt, body, bytes),
    cut: { total: bytes, kept, wholeLines },
    attached: bytes,
  };
}

/**
 * The attachment of piped input that `readStdin` (prompt-input.ts) cut (`tail` not empty): its head and tail
 * decoded as {@link stdinText} decodes (the head tells the encoding; either end may be binary),
 * each cut at a line end (a whole character when it holds none), with the note of how much was
 * cut between them.
 */
export function cutStdinAttachment(prompt: string, ends: StdinBytes): AttachedPrompt {
  const { head, tail, total } = ends;
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    return cutUtf16Attachment(prompt, ends);
  }
  // UTF-8 and windows-1252 alike: a byte 0x0a is a line feed, never part of another character.
  const headEnd = headLines(head);
  const tailEnd = tailLines(tail);
  const headText = stdinText(headEnd.bytes);
  const tailText = stdinText(tailEnd.bytes);
  if (!headText.ok || !tailText.ok) {
    return headText.ok ? tailText : headText;
  }
  const kept = headEnd.bytes.length + tailEnd.bytes.length;
  const body = cutBody(headText.text, tailText.text, total, kept);
  const wholeLines = headEnd.whole && tailEnd.whole;
  return {
    ok: true,
    text: attachmentBlock(prompt, body, total),
    cut: { total, kept, wholeLines },
    attached: total,
  };
}

/** {@link cutStdinAttachment} of UTF-16 (its byte order mark at the head): cut in code units. */
function cutUtf16Attachment(prompt: string, { head, tail, total }: StdinBytes): AttachedPrompt {
  const headBytes = head.subarray(0, head.length - (head.length % 2));
  const decoded = stdinText(headBytes);
  if (!decoded.ok) {
    return decoded;
  }
  const tailBytes = tail.subarray((total - tail.length) % 2);
  const tailText = new TextDecoder(head[0] === 0xff ? "utf-16le" : "utf-16be").decode(tailBytes);
  const headEnd = decoded.text.lastIndexOf("\n") + 1;
  const tailStart = tailText.indexOf("\n") + 1;
  const headKept = headEnd > 0 ? decoded.text.slice(0, headEnd) : decoded.text;
  const tailWhole = tailStart > 0 && tailStart < tailText.length;
  const tailKept = tailWhole ? tailText.slice(tailStart) : tailText;
  // Two bytes a code unit: what the line ends left out of the bytes kept.
  const dropped = 2 * (decoded.text.length - headKept.length + tailText.length - tailKept.length);
  const kept = headBytes.length + tailBytes.length - dropped;
  const body = cutBody(headKept, tailKept, total, kept);
  const wholeLines = headEnd > 0 && tailWhole;
  return {
    ok: true,
    text: attachmentBlock(prompt, body, total),
    cut: { total, kept, wholeLines },
    attached: total,
  };
}

/**
 * `turnloop: warning: …` for piped input that was cut: the person who piped it is told, as the
 * model is by the note in the attachment, that the answer rests on its ends only, and whether a
 * line longer than an end was cut inside ({@link StdinCut.wholeLines}).
 */
export function stdinCutWarning({ total, kept, wholeLines }: StdinCut): string {
  const most = `${STDIN_MAX_BYTES / 2048} KiB at most at each end`;
  const sent = wholeLines
    ? `only its first and last lines, ${kept} bytes (${most}), were sent`
    : `only ${kept} bytes of its ends were sent (${most}; a line longer than that is cut inside)`;
  return `turnloop: warning: stdin had ${total} bytes; ${sent}: the ${total - kept} bytes between them were cut`;
}

/**
 * `turnloop: read N bytes from stdin …`, said once when piped stdin was attached to a prompt
 * given as text (trial 47 F4: a CI runner that feeds its job script to `bash` on stdin lost the
 * script's later lines to `turnloop -p "…"`, silently): what was read, and how to give none.
 */
export function stdinAttachedNotice(bytes: number): string {
  return `turnloop: read ${bytes} byte${bytes === 1 ? "" : "s"} from stdin as an attachment to the prompt; use </dev/null to give none`;
}

/** The attachment block after `prompt`; `bytes`: how many the piped input had. */
function attachmentBlock(prompt: string, body: string, bytes: number): string {
  const ended = body.endsWith("\n") ? body : `${body}\n`;
  return `${prompt}\n\n${ATTACHMENT_OPENINGS.stdin} bytes="${bytes}">\n${ended}</attachment>`;
}

/** Head and tail of piped input of `total` bytes, `kept` of them, with the note of the cut. */
function cutBody(head: string, tail: string, total: number, kept: number): string {
  const ended = head.endsWith("\n") ? head : `${head}\n`;
  return `${ended}[… ${total - kept} bytes of the piped input cut here; it had ${total} bytes …]\n${tail}`;
}

/** What an end of cut input keeps, and whether it is whole lines (false: a line cut inside). */
interface KeptEnd {
  bytes: Buffer;
  whole: boolean;
}

/** `head` up to its last line feed, so that its last line is whole; without one, a whole character. */
function headLines(head: Buffer): KeptEnd {
  const end = head.lastIndexOf(0x0a);
  return end >= 0
    ? { bytes: head.subarray(0, end + 1), whole: true }
    : { bytes: head.subarray(0, utf8End(head)), whole: false };
}

/**
 * `tail` after its first line feed, so that its first line is whole; without one before its
 * last byte (its end is one long line), from its first whole character.
 */
function tailLines(tail: Buffer): KeptEnd {
  const start = tail.indexOf(0x0a) + 1;
  const whole = start > 0 && start < tail.length;
  return { bytes: tail.subarray(whole ? start : utf8Start(tail)), whole };
}

/** Where `bytes` end without cutting a UTF-8 sequence: before a last sequence that is cut. */
function utf8End(bytes: Buffer): number {
  let lead = bytes.length - 1;
  while (lead > bytes.length - 4 && lead > 0 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) {
    lead -= 1;
  }
  const first = bytes[lead] ?? 0;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead >= 0 && lead + length > bytes.length ? lead : bytes.length;
}

/** Where the first whole UTF-8 sequence of `bytes` starts: after at most 3 continuation bytes. */
function utf8Start(bytes: Buffer): number {
  let start = 0;
  while (start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) {
    start += 1;
  }
  return start;
}
