import { fstatSync, type Stats, statSync } from "node:fs";
import { ATTACHMENT_OPENINGS } from "../session/prompt-attachments.js";
import { decodeFileBytes } from "../tools/text-decoding.js";

/** Piped input longer than this is cut (bytes of UTF-8): the head and the tail are kept. */
export const STDIN_MAX_BYTES = 100 * 1024;

/** How long a socket stdin (a program that started us and left its pipe open) may stay silent (ms). */
const SOCKET_SILENCE_MS = 1000;

/**
 * Whether `-p` should read stdin: never a terminal; a shell pipe, a file or a character device
 * yes; a socket (what a program's `spawn` gives) yes, but see {@link readStdin}'s silence limit;
 * `/dev/null` ("empty") has nothing to read. Told from `fstat` (and, for a character device other
 * than `/dev/null`, Node's tty module), never from `process.stdin`: that makes stdin's stream, a
 * file stream on `/dev/null`, which `-p` under a program's `stdio: "ignore"` made and read before
 * its first request (issue 26).
 */
export function stdinKind(fd = 0): "terminal" | "socket" | "data" | "empty" {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch {
    return "terminal";
  }
  if (stats.isSocket()) {
    return "socket";
  }
  if (stats.isFIFO() || stats.isFile()) {
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
 * Reads all of `input` as bytes. For a socket, gives up with `undefined` when nothing at all
 * arrives within {@link SOCKET_SILENCE_MS} (a parent that never writes nor closes its pipe must not
 * hang `-p`).
 */
export function readStdin(
  input: NodeJS.ReadableStream,
  kind: "socket" | "data",
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const silence =
      kind === "socket"
        ? setTimeout(() => {
            input.removeAllListeners("data");
            input.pause();
            resolve(undefined);
          }, SOCKET_SILENCE_MS)
        : undefined;
    input.on("data", (chunk: Buffer | string) => {
      clearTimeout(silence);
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    });
    input.once("end", () => {
      clearTimeout(silence);
      resolve(Buffer.concat(chunks));
    });
    input.once("error", (error) => {
      clearTimeout(silence);
      reject(error);
    });
  });
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
  let body = piped;
  if (bytes > STDIN_MAX_BYTES) {
    const encoded = Buffer.from(piped, "utf8");
    const half = STDIN_MAX_BYTES / 2;
    const head = encoded
      .subarray(0, half)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    const tail = encoded
      .subarray(bytes - half)
      .toString("utf8")
      .replace(/^\uFFFD/, "");
    body = `${head}\n[… ${bytes - STDIN_MAX_BYTES} bytes of the piped input cut here; it had ${bytes} bytes …]\n${tail}`;
  }
  const trimmed = body.endsWith("\n") ? body : `${body}\n`;
  return `${prompt}\n\n${ATTACHMENT_OPENINGS.stdin} bytes="${bytes}">\n${trimmed}</attachment>`;
}
