import { fstatSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { ATTACHMENT_OPENINGS } from "../session/prompt-attachments.js";
import { decodeFileBytes } from "../tools/text-decoding.js";

/** Piped input longer than this is cut (bytes of UTF-8): the head and the tail are kept. */
export const STDIN_MAX_BYTES = 100 * 1024;

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
 * keeps its first and last halves, with a note saying how much was cut.
 */
export function withStdinAttachment(prompt: string, piped: string): string {
  const bytes = Buffer.byteLength(piped);
  if (bytes <= STDIN_MAX_BYTES) {
    return attachmentBlock(prompt, piped, bytes);
  }
  const encoded = Buffer.from(piped, "utf8");
  const half = STDIN_MAX_BYTES / 2;
  const head = encoded.subarray(0, utf8End(encoded.subarray(0, half)));
  const tail = encoded.subarray(bytes - half);
  const kept = tail.subarray(utf8Start(tail));
  const body = cutBody(
    head.toString("utf8"),
    kept.toString("utf8"),
    bytes,
    head.length + kept.length,
  );
  return attachmentBlock(prompt, body, bytes);
}

/** The attachment block after `prompt`; `bytes`: how many the piped input had. */
function attachmentBlock(prompt: string, body: string, bytes: number): string {
  const ended = body.endsWith("\n") ? body : `${body}\n`;
  return `${prompt}\n\n${ATTACHMENT_OPENINGS.stdin} bytes="${bytes}">\n${ended}</attachment>`;
}

/** Head and tail of piped input of `total` bytes, `kept` of them, with the note of the cut. */
function cutBody(head: string, tail: string, total: number, kept: number): string {
  return `${head}\n[… ${total - kept} bytes of the piped input cut here; it had ${total} bytes …]\n${tail}`;
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

/**
 * The attachment of piped input that {@link readStdin} cut (`tail` not empty): its head and tail
 * decoded as {@link stdinText} decodes (the head tells the encoding; either end may be binary),
 * each cut at a whole character, with the note of how much was cut between them.
 */
function cutStdinAttachment(
  prompt: string,
  { head, tail, total }: StdinBytes,
): { ok: true; text: string } | { ok: false; message: string } {
  const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  const headBytes = utf16
    ? head.subarray(0, head.length - (head.length % 2))
    : head.subarray(0, utf8End(head));
  const headText = stdinText(headBytes);
  if (!headText.ok) {
    return headText;
  }
  const tailBytes = tail.subarray(utf16 ? (total - tail.length) % 2 : utf8Start(tail));
  const tailText = utf16
    ? {
        ok: true as const,
        text: new TextDecoder(head[0] === 0xff ? "utf-16le" : "utf-16be").decode(tailBytes),
      }
    : stdinText(tailBytes);
  if (!tailText.ok) {
    return tailText;
  }
  const body = cutBody(headText.text, tailText.text, total, headBytes.length + tailBytes.length);
  return { ok: true, text: attachmentBlock(prompt, body, total) };
}

/**
 * The prompt: `-p TEXT`, or stdin for `-p -` (and `-p` without text); piped stdin besides a text
 * prompt is attached to it. A terminal stdin is never read; `stdin` absent: not read.
 */
export async function promptText(
  prompt: string,
  stdin: (() => NodeJS.ReadableStream) | undefined,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
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
  return {
    ok: true,
    text: piped === undefined || piped.trim() === "" ? prompt : withStdinAttachment(prompt, piped),
  };
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
