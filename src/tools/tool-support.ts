import { realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import type { KnownFile, SessionEvent } from "../events/events.js";
import type { ToolContext, ToolResult } from "./define-tool.js";

/** A successful result whose `content` is `text`. */
export function textResult(text: string): ToolResult {
  return { content: text, isError: false };
}

/** A failed result the model reads as `message`. */
export function errorResult(message: string): ToolResult {
  return { content: message, isError: true };
}

/**
 * Whether a path the model gave names something: not empty or only spaces (trial 37 F4: an empty
 * `path` resolved to the working directory, and `create` said the workspace "is a directory").
 * The file tools' schemas refuse a blank one with {@link BLANK_PATH}, before any permission
 * question.
 */
export function isGivenPath(path: string): boolean {
  return path.trim() !== "";
}

/** What the model reads for a blank `path` ({@link isGivenPath}). */
export const BLANK_PATH = {
  file: "path is empty: give the path of a file (absolute, or relative to the working directory)",
  folder: "path is empty: give a file or folder, or leave path out to search the working directory",
} as const;

/** Resolves a path the model gave: `~/…` from the home folder, else relative to `cwd` unless absolute. */
export function resolveToolPath(cwd: string, path: string): string {
  if (path === "~" || path.startsWith("~/")) {
    return join(homedir(), path.slice(1));
  }
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * How a file tool's refusal names a file or folder (file-system-errors.ts): relative to the
 * working directory `cwd` (`.` for itself) when it is inside it, absolute outside it (an
 * `--add-dir` folder, `/tmp`). `path` is absolute. (glob and grep name their results as their
 * `path` was given.)
 */
export function shownPath(cwd: string, path: string): string {
  const inside = relative(cwd, path);
  if (inside === "") {
    return ".";
  }
  return inside === ".." || inside.startsWith("../") || isAbsolute(inside) ? path : inside;
}

/**
 * The test for the files a search of the folder `root` (absolute) must leave out
 * ({@link ToolContext.hidden}), taking the absolute paths the search finds below `root`. Each is
 * judged as found and with `root`'s links resolved, so searching a link to a folder does not
 * show what the rules hide in that folder. Undefined when nothing is hidden.
 */
export function hiddenBelow(
  context: ToolContext,
  root: string,
): ((path: string) => boolean) | undefined {
  const hidden = context.hidden;
  if (hidden === undefined) {
    return undefined;
  }
  const realRoot = resolveLinks(root);
  return (path) => {
    if (hidden(path)) {
      return true;
    }
    const below = relative(root, path);
    return (
      realRoot !== root &&
      !below.startsWith("..") &&
      !isAbsolute(below) &&
      hidden(join(realRoot, below))
    );
  };
}

/** The exact wording Copilot CLI's tools use for a missing path (models have seen it). */
export function missingPathMessage(path: string): string {
  return `Path ${path} does not exist. Please provide a valid path.`;
}

/*
 * The file tools' `stat` and `realpath` of the path they were given run on the calling thread,
 * each one system call: the permission decision resolved the same path's links there just before
 * (permissions/permission-decision.ts `resolveReal`, for the tool's paths and its working
 * folder), so a path that would hang this thread hung it there already, and a thread-pool round
 * trip cost the main thread more than the call (bench/notes/turn34.md: about three times; a busy
 * server's `view` stat 2.9 % of its samples, bench/notes/server40.md; server41.md for the rest).
 */

/**
 * The real path behind `path` (absolute) when it exists (`realpath(3)`, as `fs.promises.realpath`);
 * `path` itself when it does not or cannot be resolved. On the calling thread (see above).
 */
export function resolveLinks(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/**
 * `stat` (links followed) that answers `undefined` when nothing is at `path` (ENOENT, ENOTDIR);
 * other errors (EACCES, ELOOP …) throw. On the calling thread (see above).
 */
export function statIfExists(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isMissingFileError(error)) {
      return undefined;
    }
    throw error;
  }
}

/** Whether `error` is the rejection of an aborted operation (from `signal` or an `AbortError`). */
function isAbortError(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === "AbortError");
}

/**
 * Runs a tool body and turns anything it throws into an error result, so a tool never throws.
 * An abort becomes `"<what> cancelled."`. With `files` (a file tool's working directory and what
 * did not happen, `nothing was created`), a file-system refusal is said in words
 * (file-system-errors.ts, loaded then), else `"<what> failed: <message>"`.
 */
export async function runGuarded(
  what: string,
  signal: AbortSignal,
  body: () => Promise<ToolResult>,
  files?: { cwd: string; outcome: string },
): Promise<ToolResult> {
  if (signal.aborted) {
    return errorResult(`${what} cancelled.`);
  }
  try {
    return await body();
  } catch (error) {
    if (isAbortError(error, signal)) {
      return errorResult(`${what} cancelled.`);
    }
    const problem =
      files === undefined
        ? undefined
        : (await import("./file-system-errors.js")).fileSystemProblem(
            error,
            files.cwd,
            files.outcome,
          );
    return errorResult(problem ?? `${what} failed: ${errorMessage(error)}`);
  }
}

// What the model knows of the files it works on, so that an edit made against text it never saw
// is refused (a user, a formatter or `git checkout` changed the file after the model's `view`).
//
// A successful `view` of a file (a `view_range` too: the hash is of the whole text), `edit` or
// `create` returns a `knownFile` on its result (events/event-parts.ts `KnownFile`): the file's path, links resolved, and the hash
// of its whole text as the call read or wrote it (through the client when it reads the file, so an
// editor's unsaved buffer counts; a `view_range` whose lines the editor and the disk agree on
// records the disk's text: tools/editor-text.ts). The loop records it on `tool.execution_complete`, and the
// session's history folds it into `KnownFiles` below (agent/history.ts), so a resumed, forked or
// rewound session knows exactly what its log says. An `edit`, or a `create` that overwrites, of a
// file with a hash whose text now hashes otherwise is refused; a file the model never viewed,
// edited or created is not checked (its `old_str` must still match exactly). Only the text counts:
// a `touch`, a changed mode or another encoding of the same text is no change. One hash per file.

/** The hashes of the files a session's model knows ({@link KnownFiles}), as a tool reads them. */
export interface KnownFileHashes {
  /** The hash of the text the model last knew of `path` (absolute, links resolved), if any. */
  hashOf(path: string): string | undefined;
}

/**
 * The files a session's model knows, folded from its events: the latest `knownFile` of each
 * path's successful `tool.execution_complete`. Holds a path and a 64-character hash per file.
 */
export class KnownFiles implements KnownFileHashes {
  readonly #hashes = new Map<string, string>();

  /** Folds one event; only a `tool.execution_complete` with a `knownFile` changes anything. */
  apply(event: SessionEvent): void {
    if (event.type === "tool.execution_complete" && event.data.knownFile !== undefined) {
      this.#hashes.set(event.data.knownFile.path, event.data.knownFile.sha256);
    }
  }

  hashOf(path: string): string | undefined {
    return this.#hashes.get(path);
  }

  /** Forgets every file (a rewind folds the events it keeps again). */
  clear(): void {
    this.#hashes.clear();
  }
}

/** Characters of a text hashed at a time by {@link textHash} (128 KiB of UTF-16). */
const HASHED_CHARACTERS = 64 * 1024;

/**
 * SHA-256 (hex) of `text` as UTF-16 code units (lone surrogates included, unit for unit), a
 * leading byte order mark left out: a file read from disk and through an editor compare equal.
 * `node:crypto` is loaded at the first call, not at start-up (events/random-id.ts says why). A
 * text of up to {@link HASHED_CHARACTERS} goes to one call of the one-shot `hash` (Node 20.12 and
 * later; package.json asks for 20.19): no `Hash` stream object is built for each small file a tool
 * reads or writes. A longer one is hashed {@link HASHED_CHARACTERS} at a time: its UTF-16 bytes
 * whole were twice the text (100 MiB for a 50 MiB file; trial 32).
 */
export function textHash(text: string): string {
  const start = text.startsWith("\uFEFF") ? 1 : 0;
  const { createHash, hash } = process.getBuiltinModule("node:crypto");
  if (text.length - start <= HASHED_CHARACTERS) {
    return hash("sha256", Buffer.from(text.slice(start), "utf16le"), "hex");
  }
  const hashing = createHash("sha256");
  for (let index = start; index < text.length; index += HASHED_CHARACTERS) {
    // UTF-16 LE is written unit for unit: a piece may end between the halves of a pair.
    hashing.update(text.slice(index, index + HASHED_CHARACTERS), "utf16le");
  }
  return hashing.digest("hex");
}

/** The {@link KnownFile} of `text` as the file at `path` (absolute, links resolved) holds it. */
export function knownFile(path: string, text: string): KnownFile {
  return { path, sha256: textHash(text) };
}

/**
 * Whether the model last knew another text of the file at `path` (absolute, links resolved) than
 * `currentText`, which it holds now: `false` for a file it never viewed, edited or created.
 * `currentText` is read only when there is something to compare it with.
 */
export async function changedSinceKnown(
  known: KnownFileHashes,
  path: string,
  currentText: () => Promise<string | undefined> | string | undefined,
): Promise<boolean> {
  const hash = known.hashOf(path);
  if (hash === undefined) {
    return false;
  }
  const text = await currentText();
  return text === undefined || textHash(text) !== hash;
}

/**
 * Why a call that would change the file at `path` was refused, for the model and the user alike:
 * `outcome` says what was not done (`the edit was not made`).
 */
export function changedFileMessage(path: string, outcome: string): string {
  return (
    `File ${path} changed since it was last viewed (by the user, a formatter or another ` +
    `program): ${outcome} and the file keeps its new text. View it again, then make the ` +
    "change against what it holds now."
  );
}
