/**
 * Helpers for values that were thrown, and for how a problem is said. Every layer imports these
 * from here (the lowest layer), so a thrown value, a cancel's reason and a warning line are
 * described the same way on every face; and so is text from elsewhere on a terminal
 * ({@link terminalText}). {@link makeFolders} is here too: every layer makes folders, and Node's
 * own recursive `mkdir` can spin forever.
 */

import { durationWords } from "./durations.js";
import type { StopReason } from "./event-parts.js";

/** The message of anything thrown: `error.message` for an `Error`, else `String(error)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Node.js system error code of a thrown value (`"ENOENT"`, `"EACCES"`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

/** Whether `error` says nothing is at a path: `ENOENT`, or `ENOTDIR` (a file where a folder was expected). */
export function isMissingFileError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * What cancelled a prompt, carried as the reason of its abort signal (a signal's reason is what
 * aborted work throws) and recorded as the `abort` event's `reason` (`cancelled by SIGTERM`); a
 * cancel that does not say is the user's.
 */
class CancelledBy extends DOMException {
  constructor(by: string) {
    // Named AbortError, as the default abort reason is: code that looks at the name still sees one.
    super(`cancelled by ${by}`, "AbortError");
  }
}

/** The abort reason for a cancel by `by` (a signal's name, …); `undefined`: the default one. */
export function cancelReason(by: string | undefined): DOMException | undefined {
  return by === undefined ? undefined : new CancelledBy(by);
}

/** The reason {@link abortFinished} gives, built at its first use. */
let finishedReason: DOMException | undefined;

/**
 * Aborts `controller` once its work is over (a tool call returned, a model attempt closed), so
 * that whatever still listens to its signal lets go. The reason has the name and message of the
 * one `AbortController.abort()` builds (`AbortError`, "This operation was aborted") but is built
 * once per process, where each bare `abort()` built its own, stack and all, twice a turn
 * (bench/notes/micro.md). Its stack is that of its first use.
 */
export function abortFinished(controller: AbortController): void {
  finishedReason ??= new DOMException("This operation was aborted", "AbortError");
  controller.abort(finishedReason);
}

/** The `abort` event's reason when the user cancelled (Esc, Ctrl-C, ACP's session/cancel …). */
export const USER_CANCEL_REASON = "cancelled by the user";

/** The `abort` event's reason for a prompt stopped through `signal`. */
export function abortReason(signal: AbortSignal): string {
  return signal.reason instanceof CancelledBy ? signal.reason.message : USER_CANCEL_REASON;
}

/**
 * The one shape of a warning on stderr, on every face (README, above "Exit codes of `turnloop
 * -p`": every message turnloop writes to stderr starts `turnloop:`, `turnloop: warning:` for a
 * warning). A warning is something the user should know that did not stop the run: a config entry
 * left out, servers not started, a retried request, a connection left unguarded.
 * @returns `turnloop: warning: <text>`, without a newline.
 */
export function warningLine(text: string): string {
  return `turnloop: warning: ${text}`;
}

/** `line` without its leading `turnloop: `, for a face's logger that adds it itself. */
export function withoutPrefix(line: string): string {
  return line.replace(/^turnloop: /, "");
}

/*
 * Listeners of a prompt's abort signal that come and go with its tool calls and permission
 * questions. Node warns on stderr past ten listeners on one `AbortSignal`
 * ("MaxListenersExceededWarning: Possible EventTarget memory leak detected"), so a reply of more
 * than ten parallel calls, each waiting on the signal, printed it for no leak. One listener per
 * signal serves them all here; `AbortSignal.any`'s composite signals cost about 0.2 M
 * instructions more per call on Node 20 (bench/notes/turn20.md).
 */

const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts (at once if it has), unless the returned function
 * was called first. Listeners run in the order they were added.
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => {};
  }
  let listeners = waiting.get(signal);
  if (listeners === undefined) {
    const fresh = new Set<() => void>();
    listeners = fresh;
    waiting.set(signal, fresh);
    signal.addEventListener(
      "abort",
      () => {
        const due = [...fresh];
        fresh.clear();
        for (const each of due) {
          each();
        }
      },
      { once: true },
    );
  }
  const added = listeners;
  // A wrapper of its own, so that one listener added twice is two entries.
  const entry = () => listener();
  added.add(entry);
  return () => {
    added.delete(entry);
  };
}

/*
 * Text that is not turnloop's own (a model's reply, a command's output, a tool's result, an MCP
 * server's text, a file name, a remote error) made plain for a model to read ({@link plainText}:
 * every terminal control sequence and control character is removed, tab and newline kept) and
 * safe to draw on a terminal ({@link terminalText}: bidirectional and invisible format characters
 * shown as code points too) (README, "Text from elsewhere on your terminal").
 *
 * Without this a command printing `ESC[2J` wipes the screen, a reply holding `ESC]0;…BEL` sets the
 * terminal's title and `ESC]52;c;…` writes the clipboard. Nothing is kept, SGR colours included:
 * a colour left open would paint what turnloop draws after it, and the screen's width counts would
 * have to know of it.
 */

/**
 * The sequences of ECMA-48 (5th edition, 1991), in their 7-bit and 8-bit (C1) forms:
 * - control strings (OSC `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`), up to their
 *   terminator ST (`ESC \` or 0x9C) or, as xterm also takes for OSC, BEL; one never terminated
 *   loses only its opening, so that the rest of the text stays visible;
 * - control sequences (CSI `ESC [` or 0x9B): parameter bytes 0x30–0x3F, intermediate bytes
 *   0x20–0x2F, a final byte 0x40–0x7E;
 * - other escape sequences: `ESC`, intermediate bytes, a final byte 0x30–0x7E (`ESC 7`, `ESC (B`).
 */
const SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;

/** C0 controls but tab and newline, DEL, and C1 controls: what is left once sequences are gone. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A carriage return that a terminal would draw over: the text before it on its line is replaced
 * by what follows (a progress bar's `10%\r55%\r100%` reads `100%`). One before a newline (`\r\n`)
 * ends the line as the newline does.
 */
const OVERDRAWN = /[^\n\r]*\r+(?=[^\n\r])/g;

/**
 * Characters that change how the text around them is drawn, or are not drawn at all, so that a
 * line can read differently from what runs or is written ("Trojan Source", Boucher and Anderson
 * 2021, CVE-2021-42574):
 * - Unicode's bidirectional formatting characters (UAX #9, section 2): the embeddings and
 *   overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E), the isolates LRI, RLI, FSI, PDI
 *   (U+2066–U+2069), and the implicit marks LRM, RLM (U+200E, U+200F) and ALM (U+061C), which
 *   reorder the neutral characters next to them; a terminal that reorders text (VTE, Konsole,
 *   mlterm) draws a line holding them in another order than its characters run;
 * - invisible characters that hide text inside a word or a name: soft hyphen U+00AD, Mongolian vowel separator U+180E, zero width space U+200B,
 *   word joiner and the invisible operators U+2060–U+2064, the deprecated format characters
 *   U+206A–U+206F, the byte order mark U+FEFF, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
 *   and the tag characters U+E0000–U+E007F (text no one sees but a model reads).
 * Zero width joiner and non-joiner (U+200D, U+200C) and the variation selectors are left: emoji
 * sequences and Persian and Indic writing need them, and they cannot reorder or hide a word.
 */
const HIDING_CHARACTER =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/u;
const HIDING_CHARACTERS = new RegExp(HIDING_CHARACTER.source, "gu");

/** C0 controls (tab and newline too), DEL, C1 controls, and the {@link HIDING_CHARACTER}s. */
const MARKED = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${HIDING_CHARACTER.source}`, "gu");

/** One character as its code point, e.g. `⟨U+202E⟩`: visible, and acting on nothing around it. */
function codePointMark(character: string): string {
  const hex = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
  return `⟨U+${hex}⟩`;
}

/**
 * `text` with every control character (tab and newline too) and every character that can reorder
 * or hide text ({@link HIDING_CHARACTER}) shown as its code point, e.g. `⟨U+001B⟩`: for a value
 * that must be drawn whole on one line, its oddities visible (the trust questions,
 * session/trust-lines.ts). Text drawn as lines is {@link terminalText}.
 */
export function markedText(text: string): string {
  return text.replace(MARKED, codePointMark);
}

/** C0 controls but tab and newline, DEL, C1 controls, and the {@link HIDING_CHARACTER}s. */
const MARKED_IN_ARGUMENTS = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]|${HIDING_CHARACTER.source}`,
  "gu",
);

/**
 * A tool call's argument (a command, a path, a pattern) as every face draws it: whole, its line
 * breaks and tabs kept, every other control character and every character that can reorder or
 * hide text shown as its code point (`⟨U+000D⟩`, `⟨U+001B⟩[2K`), so that nothing in it is drawn
 * over or left out: what is shown is what runs (README, "Text from elsewhere on your terminal").
 */
export function argumentText(text: string): string {
  return text.replace(MARKED_IN_ARGUMENTS, codePointMark);
}

/**
 * `text` without terminal control sequences or control characters: tab and newline are kept, a
 * `\r\n` reads as `\n`, a line a carriage return draws over keeps what is drawn last. Text
 * without a control character (the usual case) is returned as it is. This is the text a model
 * reads (the bash tool's output); what turnloop draws is {@link terminalText}.
 */
export function plainText(text: string): string {
  if (!hasControl(text)) {
    return text;
  }
  return text.replace(SEQUENCE, "").replace(OVERDRAWN, "").replace(CONTROL, "");
}

/**
 * `text` as turnloop draws it on a terminal: {@link plainText}, and each character that can
 * reorder or hide text ({@link HIDING_CHARACTER}) shown as its code point, e.g. `⟨U+202E⟩`,
 * `⟨U+200B⟩`. Only the drawing changes: the model and the files get the characters as they are.
 */
export function terminalText(text: string): string {
  const plain = plainText(text);
  if (!HIDING_CHARACTER.test(plain)) {
    return plain;
  }
  return plain.replace(HIDING_CHARACTERS, codePointMark);
}

/** Whether `text` holds a character {@link terminalText} would remove or change. */
function hasControl(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) {
      return true;
    }
  }
  return false;
}

/**
 * The line for an `abort` event on every face: `cancelled` when the user cancelled (Esc, Ctrl-C,
 * `session/cancel`, `abort()`), else its reason as the log has it (`cancelled by SIGTERM`,
 * `cancelled by a closed output (EPIPE)`): who stopped the prompt, in the log's words.
 */
export function abortNote(reason: string): string {
  return reason === USER_CANCEL_REASON ? "cancelled" : reason;
}

/**
 * `stopped: …` for a prompt a limit or the model stopped before its answer was complete, in plain
 * words with the stop reason in brackets (`the reply reached the model's output limit
 * (max_tokens)`, `the provider refused to answer (refusal, its content filter); rephrase …`), or
 * `stopped: max_turn_requests`, `why` after it when given; undefined for a finished answer
 * (`end_turn`) and a cancel (its `abort` line says it). A face that knows the turn limit, or how
 * to go on, says more (cli/event-notes.ts `stopNote`).
 */
export function stoppedNote(stopReason: StopReason, why?: string): string | undefined {
  const after = why === undefined ? "" : `: ${why}`;
  switch (stopReason) {
    case "max_turn_requests":
      return `stopped: ${stopReason}${after}`;
    case "max_tokens":
      return `stopped: the reply reached the model's output limit (max_tokens)${after}`;
    case "refusal":
      return `stopped: the provider refused to answer (refusal, its content filter)${after}; rephrase the prompt, or use another model`;
    case "end_turn":
    case "cancelled":
      return undefined;
    default: {
      const unknown: never = stopReason;
      return unknown;
    }
  }
}

/**
 * `retrying in 1.2 s (attempt 1): <error>` for an `assistant.retry` (its `delayMs` in the words
 * of durations.ts `durationWords`: `in 5 ms`, `in 1.5 s`): every face says a retry in these
 * words (README: "each retry is shown").
 */
export function retryNote(data: {
  delayMs: number;
  attempt: number;
  errorMessage: string;
}): string {
  return `retrying in ${durationWords(data.delayMs)} (attempt ${data.attempt}): ${data.errorMessage}`;
}

/**
 * `mkdir -p`: makes the folder `path` (absolute) and each missing folder above it, new ones with
 * `mode` (less the umask; default 0777). Node's own `mkdir(path, { recursive: true })` never
 * returns where a folder exists but refuses new entries with `ENOENT`, as `/proc` does (its walk
 * goes back up on each `ENOENT`, finds the parent, and tries again forever: a thread-pool thread
 * spins, and once four do, every file operation of the process waits, a SIGTERM's clean stop
 * included). Here each folder is tried at most twice, before and after its parent is made.
 * @throws `EEXIST` when a file that is not a folder is at `path`; `ENOTDIR` when one is above it;
 * `ENOENT` naming the parent when the parent exists but the folder still cannot be made (see
 * {@link refusedFolder}); other errors of `mkdir` (EACCES, EROFS, ENOSPC …) as they are.
 */
export async function makeFolders(path: string, mode?: number): Promise<void> {
  const { mkdir, stat } = fs().promises;
  const isFolder = () =>
    stat(path).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
  const first = await mkdir(path, { mode }).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (first === undefined || (errorCode(first) === "EEXIST" && (await isFolder()))) {
    return;
  }
  const parent = parentFolder(path);
  if (errorCode(first) !== "ENOENT" || parent === path) {
    throw first;
  }
  await makeFolders(parent, mode);
  const second = await mkdir(path, { mode }).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (second === undefined || (errorCode(second) === "EEXIST" && (await isFolder()))) {
    return;
  }
  throw errorCode(second) === "ENOENT" ? refusedFolder(path, parent) : second;
}

/** {@link makeFolders}, synchronous: for a caller that must not wait (a tool's output file). */
export function makeFoldersSync(path: string, mode?: number): void {
  const { mkdirSync, statSync } = fs();
  const made = (): unknown => {
    try {
      mkdirSync(path, { mode });
      return undefined;
    } catch (error) {
      const isFolder = statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
      return errorCode(error) === "EEXIST" && isFolder ? undefined : error;
    }
  };
  const first = made();
  if (first === undefined) {
    return;
  }
  const parent = parentFolder(path);
  if (errorCode(first) !== "ENOENT" || parent === path) {
    throw first;
  }
  makeFoldersSync(parent, mode);
  const second = made();
  if (second !== undefined) {
    throw errorCode(second) === "ENOENT" ? refusedFolder(path, parent) : second;
  }
}

/**
 * The `ENOENT` of folder `path` whose `parent` exists but takes no new folder (`/proc/nope`):
 * `ENOENT: /proc exists but takes no new folder, mkdir '/proc/nope'`.
 */
function refusedFolder(path: string, parent: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `ENOENT: ${parent} exists but takes no new folder, mkdir '${path}'`,
  );
  error.code = "ENOENT";
  error.syscall = "mkdir";
  error.path = path;
  return error;
}

/** Node's file system module, taken when a folder is made (this module imports nothing). */
function fs(): typeof import("node:fs") {
  return process.getBuiltinModule("node:fs");
}

/** The folder above `path` (`node:path`'s `dirname`, taken when needed). */
function parentFolder(path: string): string {
  return process.getBuiltinModule("node:path").dirname(path);
}
