import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { type FileHandle, lstat, open, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { errorCode, errorMessage, isMissingFileError } from "../events/errors.js";
import { normalAbsolutePath } from "./sandbox/policy.js";
import { hiddenPlacePaths } from "./sandbox/real-paths.js";

/**
 * The one reader of files a repository names and turnloop's own process reads (README, "Project
 * files"): the instruction files (`AGENTS.md` and the other agents' names), `.turnloop/config.json`,
 * `.mcp.json`, and the user's own config files. A cloned repository controls them, so none is
 * read as a trusted plain file:
 *
 * - a project's file whose real path (symbolic links followed) lies outside its project folder, or
 *   in a hidden place (tools/sandbox/real-paths.ts `hiddenPlacePaths`, the file tools' and the
 *   sandbox's one list), is refused: `AGENTS.md -> ~/.ssh/id_rsa` is not read;
 * - only a regular file is read: the file is opened with `O_NONBLOCK` (a FIFO opens at once, with
 *   no writer) and judged by `fstat` of the opened descriptor, not by a check before the open
 *   that a swapped link would race, so a FIFO, `/dev/zero`, a socket or a folder is refused
 *   without a blocking read on the main thread;
 * - at most `maxBytes` are read, never the whole file first: a longer file is refused (config
 *   files) or only its start is read (instruction files, cut to fit their budget anyway);
 * - {@link readProjectFile} reads on the calling thread, for small files; a file of a large bound
 *   (an SDK prompt's attached file) is read by the thread pool ({@link readProjectFileInBackground}).
 *
 * A refusal's reason names the file's path and why, never its content.
 */

/** The most a config file (`.turnloop/config.json`, `.mcp.json`, the user's) may hold: 1 MiB. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

/** What {@link readProjectFile} found: nothing, a refusal and why, or the bytes read. */
export type ProjectFileRead =
  | { kind: "missing" }
  | { kind: "refused"; reason: string }
  | {
      kind: "read";
      /** The bytes read: the whole file, or its first `maxBytes` when `cut`. */
      bytes: Buffer;
      /** The file's size in bytes, as `fstat` gave it. */
      size: number;
      /** Whether only the first `maxBytes` were read (`overLimit: "cut"`). */
      cut: boolean;
    };

/** How a file is read: its bound and, for a project's file, where it must lie. */
export interface ProjectFileRules {
  /** Bytes read at most. */
  maxBytes: number;
  /** A file longer than `maxBytes`: refused, or its first `maxBytes` read. */
  overLimit: "refuse" | "cut";
  /**
   * For a repository's file: the project folder its real path must lie in, and `TURNLOOP_HOME`
   * (a hidden place beside the default list). Absent: the user's own file, read where it leads.
   */
  project?: { folder: string; turnloopHome?: string };
  /** How a refusal names the limit: `1 MiB a config file may hold`. */
  limitName?: string;
}

/**
 * Reads `path` by `rules` (see the module comment). Never throws, never blocks on a special
 * file. @returns `missing` when nothing is there (a dangling link included); `refused` with a
 * sentence naming why (outside the project, in a hidden place, not a regular file, too long,
 * unreadable: the system's error code and message, which quote no content).
 */
export function readProjectFile(path: string, rules: ProjectFileRules): ProjectFileRead {
  let real: string;
  try {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) {
      return { kind: "missing" };
    }
    real = realpathSync(path);
  } catch (error) {
    return unresolved(error);
  }
  const place = rules.project === undefined ? undefined : placeRefusal(real, rules.project);
  if (place !== undefined) {
    return { kind: "refused", reason: place };
  }
  let descriptor: number | undefined;
  try {
    descriptor = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    return readOpened(descriptor, rules);
  } catch (error) {
    return { kind: "refused", reason: `cannot be read: ${errorMessage(error)}` };
  } finally {
    if (descriptor !== undefined) {
      closeSync(descriptor);
    }
  }
}

/** The bytes of the opened `descriptor` by `rules`, or why it is refused. */
function readOpened(descriptor: number, rules: ProjectFileRules): ProjectFileRead {
  const stats = fstatSync(descriptor);
  const refusal = statsRefusal(stats, rules);
  if (refusal !== undefined) {
    return refusal;
  }
  // The size `fstat` gave may grow while the file is read: never more than the bound.
  const buffer = Buffer.alloc(Math.min(stats.size, rules.maxBytes));
  let filled = 0;
  while (filled < buffer.length) {
    const count = readSync(descriptor, buffer, filled, buffer.length - filled, null);
    if (count === 0) {
      break;
    }
    filled += count;
  }
  return readOf(buffer, filled, stats.size, rules.maxBytes);
}

/**
 * {@link readProjectFile} off the main thread: the same rules, refusals and words, each step
 * (resolving the path, the open, its `fstat`, the read) done by the thread pool, so that reading
 * a file of up to `maxBytes` (an SDK prompt's attached file: 64 MiB) holds up nothing else the
 * process serves meanwhile. Never rejects.
 */
export async function readProjectFileInBackground(
  path: string,
  rules: ProjectFileRules,
): Promise<ProjectFileRead> {
  let real: string;
  try {
    await lstat(path);
    real = await realpath(path);
  } catch (error) {
    return unresolved(error);
  }
  const place = rules.project === undefined ? undefined : placeRefusal(real, rules.project);
  if (place !== undefined) {
    return { kind: "refused", reason: place };
  }
  let handle: FileHandle | undefined;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    const stats = await handle.stat();
    const refusal = statsRefusal(stats, rules);
    if (refusal !== undefined) {
      return refusal;
    }
    const buffer = Buffer.alloc(Math.min(stats.size, rules.maxBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) {
        break;
      }
      filled += bytesRead;
    }
    return readOf(buffer, filled, stats.size, rules.maxBytes);
  } catch (error) {
    return { kind: "refused", reason: `cannot be read: ${errorMessage(error)}` };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * A path that cannot be resolved: missing when nothing is there (ENOENT: a dangling link too),
 * else refused (a parent that is a file, ENOTDIR, is the user's to fix).
 */
function unresolved(error: unknown): ProjectFileRead {
  return errorCode(error) === "ENOENT"
    ? { kind: "missing" }
    : { kind: "refused", reason: `cannot be read: ${errorMessage(error)}` };
}

/** What was read: the first `filled` bytes of `buffer`, of a file `fstat` said holds `size`. */
function readOf(buffer: Buffer, filled: number, size: number, maxBytes: number): ProjectFileRead {
  return { kind: "read", bytes: buffer.subarray(0, filled), size, cut: size > maxBytes };
}

/** Why a file of `stats` is refused by `rules` (not a regular file, too long), or undefined. */
function statsRefusal(stats: Stats, rules: ProjectFileRules): ProjectFileRead | undefined {
  if (!stats.isFile()) {
    return {
      kind: "refused",
      reason: `is not a regular file (${fileKind(stats)}); only a regular file is read`,
    };
  }
  if (stats.size > rules.maxBytes && rules.overLimit === "refuse") {
    const limit = rules.limitName ?? `${rules.maxBytes}-byte limit`;
    return { kind: "refused", reason: `is ${stats.size} bytes, more than the ${limit}` };
  }
  return undefined;
}

/** Why a project's file at real path `real` is refused for where it lies; undefined: it may be read. */
function placeRefusal(
  real: string,
  project: { folder: string; turnloopHome?: string },
): string | undefined {
  const home = homedir();
  const places = hiddenPlacePaths({
    home,
    turnloopHome: project.turnloopHome ?? join(home, ".turnloop"),
  });
  const folder = realOrSame(normalAbsolutePath(project.folder));
  for (const place of places) {
    const spelled = normalAbsolutePath(place);
    const resolved =
      lstatSync(spelled, { throwIfNoEntry: false }) === undefined ? spelled : realOrSame(spelled);
    // A project that itself lies in a hidden place (one kept under TURNLOOP_HOME, a dotfiles
    // repository in ~/.config/…) is where its user works: its own files are read there.
    const holdsProject = isInside(folder, spelled) || isInside(folder, resolved);
    if (!holdsProject && (isInside(real, spelled) || isInside(real, resolved))) {
      return `leads to ${real}, in ${place}, a place hidden from the agent (credentials, histories, turnloop's session logs; README, Sandbox)`;
    }
  }
  if (!isInside(real, folder)) {
    return `leads to ${real}, outside the project folder ${folder}; a project's file must lie in its project (a symbolic link out of it is not followed)`;
  }
  return undefined;
}

/**
 * Whether `path` is `folder` or lies below it, both absolute and normal (as sandbox/real-paths.ts
 * `isInside`, which is not loaded before a session's first request: issue 26).
 */
function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === "/" ? folder : `${folder}/`);
}

/** The real path of `path`, or `path` itself when it cannot be resolved. */
function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** What a file that is not a regular one is, in a few words. */
function fileKind(stats: Stats): string {
  if (stats.isDirectory()) {
    return "a folder";
  }
  if (stats.isFIFO()) {
    return "a FIFO";
  }
  if (stats.isCharacterDevice()) {
    return "a character device";
  }
  if (stats.isBlockDevice()) {
    return "a block device";
  }
  return stats.isSocket() ? "a socket" : "not a file";
}

/**
 * `bytes` without a UTF-8 sequence cut at its end (a file read only to a bound), so that a strict
 * UTF-8 decoder does not take the start of a cut file for another encoding.
 */
export function wholeUtf8Prefix(bytes: Buffer): Buffer {
  let start = bytes.length - 1;
  // Step back over continuation bytes (10xxxxxx) to the last sequence's lead byte.
  while (start >= 0 && bytes.length - start < 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) {
    start--;
  }
  const lead = bytes[start];
  if (lead === undefined || lead < 0xc0) {
    return bytes;
  }
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return bytes.length - start < length ? bytes.subarray(0, start) : bytes;
}

/** A config file's text, or the problem that names it (its path first). */
export type FileText = { text: string; problem?: undefined } | { problem: string };

/**
 * A config file (`.turnloop/config.json`, `.mcp.json`, the user's) as UTF-8 text, by
 * {@link readProjectFile}: a regular file of at most {@link CONFIG_FILE_MAX_BYTES}; with
 * `projectFolder` (a project's file) lying in it and out of the hidden places, `turnloopHome`
 * hidden too. Undefined: nothing there.
 */
export function readConfigFileText(
  path: string,
  projectFolder: string | undefined,
  turnloopHome?: string,
): FileText | undefined {
  const file = readProjectFile(path, {
    maxBytes: CONFIG_FILE_MAX_BYTES,
    overLimit: "refuse",
    limitName: "1 MiB a config file may hold",
    ...(projectFolder === undefined
      ? {}
      : {
          project: {
            folder: projectFolder,
            ...(turnloopHome === undefined ? {} : { turnloopHome }),
          },
        }),
  });
  switch (file.kind) {
    case "missing":
      return undefined;
    case "refused":
      return { problem: `${path} ${file.reason}` };
    case "read":
      return { text: file.bytes.toString("utf8") };
  }
}

/**
 * A file the user named (`--mcp-config`) as UTF-8 text: read as given (a pipe of `<(…)` too),
 * off the main thread; a missing one found by a `stat` that builds no error (`throwIfNoEntry`;
 * Node's `ENOENT` error of a failed `readFile` cost about 1 % of a `-p` run's instructions,
 * bench/notes/targets.md, round 3 session 18). Undefined: nothing there.
 */
export async function readNamedFileText(path: string): Promise<FileText | undefined> {
  try {
    if (statSync(path, { throwIfNoEntry: false }) === undefined) {
      return undefined;
    }
    const { readFile } = await import("node:fs/promises");
    return { text: await readFile(path, "utf8") };
  } catch (error) {
    return isMissingFileError(error) ? undefined : { problem: `${path}: ${errorMessage(error)}` };
  }
}

/**
 * `JSON.parse`'s complaint about `text` with the line and column (1-based) it points at, instead
 * of a byte position: `line 5, column 3: Expected ',' or '}' after property value`. Never a
 * word of `text` itself: V8 quotes the start of the text when it names no position (`Unexpected
 * token 'P', "PRIVATE-KE"... is not valid JSON`), and the text may be a secret a link led to
 * (a trial's finding), so that complaint becomes `line 1, column 1: Unexpected character`, the
 * place found as the longest start of `text` that is still the start of some JSON value.
 */
export function jsonSyntaxMessage(text: string, error: unknown): string {
  const message = errorMessage(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const quoting = /^Unexpected token\b/.test(message) && position === undefined;
  const offset =
    position !== undefined
      ? Number(position)
      : quoting
        ? validJsonPrefixLength(text)
        : /end of (JSON )?(data|input)/i.test(message)
          ? text.length
          : undefined;
  const reason = quoting
    ? "Unexpected character"
    : message
        .replace(/ (?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?/, "")
        .replace(/^JSON\.parse: /, "")
        // Any other quoted piece of the text V8 may add: left out, never shown.
        .replace(/,? ?"(?:[^"\\]|\\.)*"(?:\.\.\.)? is not valid JSON$/, "");
  if (offset === undefined) {
    return reason;
  }
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}: ${reason}`;
}

/**
 * How much of `text` is the start of some JSON value: the longest prefix `JSON.parse` takes, or
 * fails on only for ending early (a binary search: the starts of a valid start are valid). A
 * literal cut short (`tru`) counts as invalid, so the place found may be up to 4 characters early.
 */
function validJsonPrefixLength(text: string): number {
  const endsEarly = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (error) {
      // At the end V8 says so, or names the end as the place (`Expected ',' or '}' … at position 7`).
      const message = errorMessage(error);
      const at = /at position (\d+)/.exec(message)?.[1];
      return at === undefined ? /end of (JSON )?(data|input)/i.test(message) : Number(at) >= length;
    }
  };
  let valid = 0;
  let invalid = text.length;
  while (invalid - valid > 1) {
    const middle = Math.floor((valid + invalid) / 2);
    if (endsEarly(middle)) {
      valid = middle;
    } else {
      invalid = middle;
    }
  }
  return valid;
}
