import {
  close,
  closeSync,
  constants,
  fstat,
  fstatSync,
  lstatSync,
  open,
  openSync,
  read as readDescriptor,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorCode, errorMessage } from "../events/errors.js";
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
 *   Both make the one sequence of steps (`readingSteps`), a generator that names each file-system
 *   call it needs: the one makes each call at once, the other through the thread pool.
 *
 * Config files as text, and JSON's syntax errors in words, are config-file-text.ts's.
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
 * Reads `path` by `rules` (see the module comment) on the calling thread. Never throws, never
 * blocks on a special file. @returns `missing` when nothing is there (a dangling link included);
 * `refused` with a sentence naming why (outside the project, in a hidden place, not a regular
 * file, too long, unreadable: the system's error code and message, which quote no content).
 */
export function readProjectFile(path: string, rules: ProjectFileRules): ProjectFileRead {
  const steps = readingSteps(path, rules);
  let step = steps.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = callNow(step.value);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next(answer);
  }
  return step.value;
}

/**
 * {@link readProjectFile} off the main thread: the same steps, refusals and words, each call
 * (resolving the path, the open, its `fstat`, the reads, the close) made by the thread pool, so
 * that reading a file of up to `maxBytes` (an SDK prompt's attached file: 64 MiB) holds up nothing
 * else the process serves meanwhile. Never rejects.
 */
export async function readProjectFileInBackground(
  path: string,
  rules: ProjectFileRules,
): Promise<ProjectFileRead> {
  const steps = readingSteps(path, rules);
  let step = steps.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = await callInBackground(step.value);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next(answer);
  }
  return step.value;
}

/** A file-system call {@link readingSteps} asks for, by the name of its answer in {@link Answers}. */
type FileCall =
  | { name: "exists"; path: string }
  | { name: "realpath"; path: string }
  | { name: "open"; path: string }
  | { name: "fstat"; descriptor: number }
  | { name: "read"; descriptor: number; buffer: Buffer; offset: number }
  | { name: "close"; descriptor: number };

/** What each {@link FileCall} answers: a `read` the bytes it read (0 at the end of the file). */
interface Answers {
  exists: boolean;
  realpath: string;
  open: number;
  fstat: Stats;
  read: number;
  close: undefined;
}

/** How a file is opened: without waiting (a FIFO), never as a controlling terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** `call` made on the calling thread; throws what the system call throws. */
function callNow(call: FileCall): unknown {
  switch (call.name) {
    case "exists":
      return lstatSync(call.path, { throwIfNoEntry: false }) !== undefined;
    case "realpath":
      return realpathSync(call.path);
    case "open":
      return openSync(call.path, OPEN_FLAGS);
    case "fstat":
      return fstatSync(call.descriptor);
    case "read":
      return readSync(
        call.descriptor,
        call.buffer,
        call.offset,
        call.buffer.length - call.offset,
        null,
      );
    case "close":
      return closeSync(call.descriptor);
  }
}

/** `call` made by the thread pool; rejects with what the system call fails with. */
async function callInBackground(call: FileCall): Promise<unknown> {
  switch (call.name) {
    case "exists":
      return lstat(call.path).then(
        () => true,
        (error: unknown) => (errorCode(error) === "ENOENT" ? false : Promise.reject(error)),
      );
    case "realpath":
      return realpath(call.path);
    case "open":
      return promisify(open)(call.path, OPEN_FLAGS);
    case "fstat":
      return promisify(fstat)(call.descriptor);
    case "read": {
      const { buffer, offset } = call;
      const read = promisify(readDescriptor);
      return (await read(call.descriptor, buffer, offset, buffer.length - offset, null)).bytesRead;
    }
    case "close":
      return promisify(close)(call.descriptor);
  }
}

/**
 * Asks for `request` and gives back its answer: the drivers ({@link readProjectFile},
 * {@link readProjectFileInBackground}) answer each call with what the call of that name returns.
 */
function* ask<Name extends FileCall["name"]>(
  request: Extract<FileCall, { name: Name }>,
): Generator<FileCall, Answers[Name], unknown> {
  return (yield request) as Answers[Name];
}

/**
 * The one sequence of a read, its file-system calls made by a driver: resolve the path, judge
 * where it leads, open it, judge the opened file by its `fstat`, read at most `maxBytes`, close.
 */
function* readingSteps(
  path: string,
  rules: ProjectFileRules,
): Generator<FileCall, ProjectFileRead, unknown> {
  let real: string;
  try {
    if (!(yield* ask({ name: "exists", path }))) {
      return { kind: "missing" };
    }
    real = yield* ask({ name: "realpath", path });
  } catch (error) {
    return unresolved(error);
  }
  const place = rules.project === undefined ? undefined : placeRefusal(real, rules.project);
  if (place !== undefined) {
    return { kind: "refused", reason: place };
  }
  let descriptor: number | undefined;
  try {
    descriptor = yield* ask({ name: "open", path: real });
    const stats = yield* ask({ name: "fstat", descriptor });
    const refusal = statsRefusal(stats, rules);
    if (refusal !== undefined) {
      return refusal;
    }
    // The size `fstat` gave may grow while the file is read: never more than the bound.
    const buffer = Buffer.alloc(Math.min(stats.size, rules.maxBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const count = yield* ask({ name: "read", descriptor, buffer, offset: filled });
      if (count === 0) {
        break;
      }
      filled += count;
    }
    return {
      kind: "read",
      bytes: buffer.subarray(0, filled),
      size: stats.size,
      cut: stats.size > rules.maxBytes,
    };
  } catch (error) {
    return { kind: "refused", reason: `cannot be read: ${errorMessage(error)}` };
  } finally {
    if (descriptor !== undefined) {
      yield* closeQuietly(descriptor);
    }
  }
}

/** Closes `descriptor`; a failed close loses nothing read, so its error is dropped. */
function* closeQuietly(descriptor: number): Generator<FileCall, void, unknown> {
  try {
    yield* ask({ name: "close", descriptor });
  } catch {
    // The bytes were read or the read was refused already.
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
