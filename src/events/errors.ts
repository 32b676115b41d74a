/**
 * Helpers for values that were thrown, and for how a problem is said. Every layer imports these
 * from here (the lowest layer), so a thrown value, a cancel's reason and a warning line are
 * described the same way on every face; and so is text from elsewhere on a terminal
 * (terminal-text.ts `terminalText`). {@link makeFolders} is here too: every layer makes folders, and Node's
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

export { argumentText, markedText, plainText, terminalText } from "./terminal-text.js";

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
