import { fstatSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import {
  type AttachedPrompt,
  cutStdinAttachment,
  STDIN_MAX_BYTES,
  stdinText,
  withStdinAttachment,
} from "./stdin-attachment.js";

/**
 * How long a stdin that a program started us with and left open may stay silent (ms) when the
 * prompt is given as an argument (see {@link readStdin}).
 */
const STDIN_SILENCE_MS = 1000;

/** How many processes up {@link ancestorWritesTo} looks for the writer of stdin's pipe. */
const ANCESTORS_LOOKED_AT = 8;

/**
 * Whether `-p` should read stdin: never a terminal; a pipe ("pipe"), a file or a character
 * device ("data") yes; a socket (what Node's `spawn` gives) yes, but see {@link readStdin}'s
 * silence limit; `/dev/null` ("empty") has nothing to read. Told from `fstat` (and, for a character device other
 * than `/dev/null`, Node's tty module), never from `process.stdin`: that makes stdin's stream, a
 * file stream on `/dev/null`, which `-p` under a program's `stdio: "ignore"` made and read before
 * its first request (issue 26).
 */
export function stdinKind(fd = 0): "terminal" | "socket" | "pipe" | "data" | "empty" {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch {
    return "terminal";
  }
  if (stats.isSocket()) {
    return "socket";
  }
  if (stats.isFIFO()) {
    return "pipe";
  }
  if (stats.isFile()) {
    return "data";
  }
  if (!stats.isCharacterDevice()) {
    return "terminal";
  }
  if (isNullDevice(stats)) {
    return "empty";
  }
  // `/dev/null` is not the only character device that is no terminal: Node's tty module, which a
  // pipe, a file or a socket never needs, loads for that question alone (issue 26).
  return process.getBuiltinModule("node:tty").isatty(fd) ? "terminal" : "data";
}

/**
 * Whether stdin (`fd`) is a terminal, as `process.stdin.isTTY` says, without making that stream
 * (Node makes it on the first read of `process.stdin`).
 */
export function stdinIsTerminal(fd = 0): boolean {
  try {
    const stats = fstatSync(fd);
    return (
      stats.isCharacterDevice() &&
      !isNullDevice(stats) &&
      process.getBuiltinModule("node:tty").isatty(fd)
    );
  } catch {
    return false;
  }
}

/** Whether `stats` (a character device's) are of the system's null device (`/dev/null`). */
function isNullDevice(stats: Stats): boolean {
  try {
    const nullDevice = statSync("/dev/null");
    return nullDevice.isCharacterDevice() && nullDevice.rdev === stats.rdev;
  } catch {
    // No /dev/null (Windows): such a device reads as data, as any other.
    return false;
  }
}

/**
 * What {@link readStdin} kept of its input: all of it in `head` (`tail` empty) when it had at most
 * twice the bytes kept at each end, else its first bytes in `head` and its last in `tail`;
 * `total` counts every byte read.
 */
export interface StdinBytes {
  head: Buffer;
  tail: Buffer;
  total: number;
}

/**
 * Reads `input` as bytes, keeping at most `keep` bytes at each end (all of it by default): the
 * middle of a longer stream is counted and let go as it arrives, so memory follows what is kept,
 * not the stream (trial 32, F4: a 50 MiB pipe held whole to attach 100 KiB of it). When nothing at
 * all arrives within {@link STDIN_SILENCE_MS} and `letGo` then answers true, gives up with
 * `undefined`: a program that started `-p` with a pipe it never writes nor closes must not hang
 * it. Without `letGo`, waits for the end.
 */
export function readStdin(
  input: NodeJS.ReadableStream,
  letGo?: () => boolean,
  keep = Number.POSITIVE_INFINITY,
): Promise<StdinBytes | undefined> {
  return new Promise((resolve, reject) => {
    const ends = new EndsKept(keep);
    const silence =
      letGo === undefined
        ? undefined
        : setTimeout(() => {
            if (ends.total === 0 && letGo()) {
              input.removeAllListeners("data");
              input.pause();
              resolve(undefined);
            }
          }, STDIN_SILENCE_MS);
    input.on("data", (chunk: Buffer | string) => {
      clearTimeout(silence);
      ends.add(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    });
    input.once("end", () => {
      clearTimeout(silence);
      resolve(ends.kept());
    });
    input.once("error", (error) => {
      clearTimeout(silence);
      reject(error);
    });
  });
}

/** The first `keep` bytes of a stream and whole chunks covering its last `keep` bytes. */
class EndsKept {
  readonly #keep: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  total = 0;

  constructor(keep: number) {
    this.#keep = keep;
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.#keep - this.#headBytes;
    const head = room > 0 ? chunk.subarray(0, room) : chunk.subarray(0, 0);
    if (head.length > 0) {
      this.#head.push(head);
      this.#headBytes += head.length;
    }
    const rest = chunk.subarray(head.length);
    if (rest.length === 0) {
      return;
    }
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    // Chunks wholly before the last `keep` bytes are let go.
    for (let first = this.#tail[0]; first !== undefined; first = this.#tail[0]) {
      if (this.#tailBytes - first.length < this.#keep) {
        break;
      }
      this.#tail.shift();
      this.#tailBytes -= first.length;
    }
  }

  kept(): StdinBytes {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    if (this.total <= 2 * this.#keep) {
      return { head: Buffer.concat([head, tail]), tail: Buffer.alloc(0), total: this.total };
    }
    return { head, tail: tail.subarray(tail.length - this.#keep), total: this.total };
  }
}

/**
 * Whether a process that (directly or through its ancestors) started turnloop holds the write
 * end of stdin's pipe (`fd`), read from Linux's /proc: true for a program that made the pipe to
 * start turnloop (Python's `subprocess.PIPE`, Go's `StdinPipe`, `shell=True` included), which
 * is waiting for turnloop; false in a shell pipeline (`make | turnloop -p …`), where a sibling
 * writes and may take its time; undefined when it cannot be told (no /proc).
 */
export function ancestorWritesTo(fd = 0, start = process.ppid): boolean | undefined {
  try {
    const pipe = fstatSync(fd);
    let pid = start;
    for (let depth = 0; depth < ANCESTORS_LOOKED_AT && pid > 1; depth += 1) {
      if (holdsWriteEnd(pid, pipe)) {
        return true;
      }
      pid = parentOf(pid);
    }
    return false;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` has `pipe` (a pipe or named pipe) open for writing. */
function holdsWriteEnd(pid: number, pipe: Stats): boolean {
  const folder = `/proc/${pid}`;
  return readdirSync(`${folder}/fd`).some((fd) => {
    try {
      const opened = statSync(`${folder}/fd/${fd}`);
      if (opened.ino !== pipe.ino || opened.dev !== pipe.dev) {
        return false;
      }
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`${folder}/fdinfo/${fd}`, "utf8"));
      // O_WRONLY is 1 and O_RDWR 2: either end can write.
      return flags?.[1] !== undefined && (Number.parseInt(flags[1], 8) & 3) !== 0;
    } catch {
      return false;
    }
  });
}

/** The parent of process `pid`: the fourth field of /proc/PID/stat, after the command's `)`. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number.parseInt(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? "0", 10);
}

/**
 * The prompt: `-p TEXT`, or stdin for `-p -` (and `-p` without text); piped stdin besides a text
 * prompt is attached to it. A terminal stdin is never read; `stdin` absent: not read.
 */
export async function promptText(
  prompt: string,
  stdin: (() => NodeJS.ReadableStream) | undefined,
): Promise<AttachedPrompt> {
  const kind = stdin === undefined ? "terminal" : stdinKind();
  const fromStdin = prompt === "-";
  if (kind === "terminal" || stdin === undefined) {
    return fromStdin
      ? {
          ok: false,
          message:
            "-p - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in or give it as -p TEXT",
        }
      : { ok: true, text: prompt };
  }
  // Piped input besides a prompt keeps only its ends (STDIN_MAX_BYTES): the rest is not held.
  const keep = fromStdin ? undefined : STDIN_MAX_BYTES / 2;
  const bytes =
    kind === "empty"
      ? { head: Buffer.alloc(0), tail: Buffer.alloc(0), total: 0 }
      : await readStdin(stdin(), letGo(kind, fromStdin), keep);
  if (bytes !== undefined && bytes.tail.length > 0) {
    return cutStdinAttachment(prompt, bytes);
  }
  const decoded = bytes === undefined ? undefined : stdinText(bytes.head);
  if (decoded?.ok === false) {
    return decoded;
  }
  const piped = decoded?.text;
  if (fromStdin) {
    return piped === undefined || piped.trim() === ""
      ? { ok: false, message: "-p - reads the prompt from stdin, but stdin was empty" }
      : { ok: true, text: piped.trimEnd() };
  }
  return piped === undefined || piped.trim() === ""
    ? { ok: true, text: prompt }
    : withStdinAttachment(prompt, piped);
}

/**
 * When a silent stdin may be left behind ({@link readStdin}): never when it is the prompt itself
 * (`-p -`: waiting is right) nor for a file; a socket (Node's `spawn`) and a pipe whose writer is
 * the program that started turnloop (Python's `subprocess`, Go's `exec`) after a second of
 * silence; a pipe a sibling writes (`make | turnloop -p …`) is waited for, however slow.
 */
function letGo(kind: "socket" | "pipe" | "data", fromStdin: boolean): (() => boolean) | undefined {
  if (fromStdin || kind === "data") {
    return undefined;
  }
  return kind === "socket" ? () => true : () => ancestorWritesTo() !== false;
}
