import { open } from "node:fs/promises";
import { startsAsPlainText } from "./text-decoding.js";

/**
 * Bytes read at a time: small enough that the text of a piece lives in V8's young generation,
 * which is freed at once, not among the large objects (over 128 KiB), freed only by a full
 * collection (1 MiB pieces let six views at once grow by 100 MiB).
 */
const CHUNK_BYTES = 64 * 1024;

/** Some lines of a UTF-8 text file, the count of all its lines and the hash of all its text. */
export interface FileLineRange {
  /** Lines in the file, counted as file-lines.ts `fileLines` counts them. */
  total: number;
  /**
   * The lines numbered `first` to `last` (1-based) that the file holds, without their `\n`, each
   * cut to its first `cutAt` characters.
   */
  lines: string[];
  /** By line number: the length in characters (a final `\r` not counted) of each line cut. */
  lengths: ReadonlyMap<number, number>;
  /** tool-support.ts `textHash` of the file's whole text. */
  sha256: string;
}

/**
 * Reads the file at `path` (absolute) 64 KiB at a time, keeping only its lines `first` to
 * `last` (1-based, inclusive; `last` may be `Infinity`), each cut to its first `cutAt`
 * characters as it is read: memory follows the lines kept, not the file (a `view_range` of a
 * 50 MiB file held it six times over; trial 32, F2), nor a kept line's length. Undefined when
 * text-decoding.ts `decodeFileBytes` would not read the file as UTF-8 without a byte order mark
 * (a binary file, another encoding, a NUL): the caller then reads it whole. Throws what reading
 * throws, and the signal's reason once it is aborted.
 */
export async function readFileLineRange(
  path: string,
  first: number,
  last: number,
  signal: AbortSignal,
  cutAt = Infinity,
): Promise<FileLineRange | undefined> {
  const { createHash } = process.getBuiltinModule("node:crypto");
  const hash = createHash("sha256");
  const read = await readLines(path, new LineCollector(first, last, cutAt), signal, (text) => {
    hash.update(text, "utf16le");
    return false;
  });
  return read?.total === undefined
    ? undefined
    : { total: read.total, lines: read.lines, lengths: read.lengths, sha256: hash.digest("hex") };
}

/** Lines of a UTF-8 text file read no further than a range's last line. */
export interface FileLineStart {
  /**
   * The lines numbered `first` to `last` (1-based) that the file holds, without their `\n`, each
   * cut to its first `cutAt` characters.
   */
  lines: string[];
  /** By line number: the length in characters (a final `\r` not counted) of each line cut. */
  lengths: ReadonlyMap<number, number>;
  /** Lines in the file when it ends by line `last`; undefined: the file goes on after it. */
  total: number | undefined;
}

/**
 * {@link readFileLineRange} that stops once the file is known to go on after line `last`
 * (finite) and hashes nothing: for a file too large to read whole (view.ts
 * `MAX_VIEW_FILE_BYTES`), time follows the lines up to `last` and memory the lines kept.
 * Undefined, throws: as {@link readFileLineRange}.
 */
export function readFileLinesUpTo(
  path: string,
  first: number,
  last: number,
  signal: AbortSignal,
  cutAt = Infinity,
): Promise<FileLineStart | undefined> {
  const lines = new LineCollector(first, last, cutAt);
  return readLines(path, lines, signal, () => lines.isPast(last));
}

/**
 * Reads the file at `path` a piece at a time into `lines`, until its end or until `stop` (given
 * each piece's text once taken) says enough: then `total` is undefined. Undefined when the file
 * is not plain UTF-8 (see {@link readFileLineRange}).
 */
async function readLines(
  path: string,
  lines: LineCollector,
  signal: AbortSignal,
  stop: (text: string) => boolean,
): Promise<FileLineStart | undefined> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    for (let position = 0; ; ) {
      signal.throwIfAborted();
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, position);
      const bytes = buffer.subarray(0, bytesRead);
      if ((position === 0 && !startsAsPlainText(bytes)) || bytes.includes(0)) {
        return undefined;
      }
      const text = decodeOrUndefined(decoder, bytes, bytesRead > 0);
      if (text === undefined) {
        return undefined;
      }
      lines.take(text);
      const enough = stop(text);
      if (bytesRead === 0) {
        return { total: lines.end(), lines: lines.kept, lengths: lines.lengths };
      }
      if (enough) {
        return { total: undefined, lines: lines.kept, lengths: lines.lengths };
      }
      position += bytesRead;
    }
  } finally {
    await file.close();
  }
}

/** The text of `bytes`, the decoder's end when `more` is false; undefined if not UTF-8. */
function decodeOrUndefined(
  decoder: InstanceType<typeof TextDecoder>,
  bytes: Uint8Array,
  more: boolean,
): string | undefined {
  try {
    return decoder.decode(bytes, { stream: more });
  } catch {
    return undefined;
  }
}

/**
 * Counts the lines of text given piece by piece, keeping those numbered `first` to `last`, each
 * cut to its first `cutAt` characters while it is read (a kept line of 60 MiB with no line break
 * is never held whole); the length of a line cut so is kept in `lengths`.
 */
class LineCollector {
  readonly kept: string[] = [];
  /** By line number: the length in characters of a kept line longer than `cutAt`, a final `\r` not counted. */
  readonly lengths = new Map<number, number>();
  /** The number of the line the next character belongs to. */
  private lineNumber = 1;
  /** What came so far of that line (at most `cutAt` characters), when it is kept. */
  private current = "";
  /** How many characters came so far of that line, when it is kept. */
  private currentLength = 0;
  /** Whether the last character that came of that line is `\r`, when it is kept. */
  private endsWithReturn = false;
  private endsWithNewline = true;
  /** Whether the line numbered `lineNumber` has begun: a character of it was taken. */
  private lineBegun = false;

  constructor(
    private readonly first: number,
    private readonly last: number,
    private readonly cutAt = Infinity,
  ) {}

  take(text: string): void {
    if (text === "") {
      return;
    }
    this.endsWithNewline = text.endsWith("\n");
    for (let position = 0; ; ) {
      const newline = text.indexOf("\n", position);
      const wanted = this.lineNumber >= this.first && this.lineNumber <= this.last;
      if (newline === -1) {
        if (wanted) {
          this.append(text, position, text.length);
        }
        this.lineBegun ||= position < text.length;
        return;
      }
      if (wanted) {
        this.append(text, position, newline);
        this.keep();
      }
      this.lineNumber += 1;
      this.lineBegun = false;
      position = newline + 1;
    }
  }

  /** Whether a character after line `last` was taken: the text goes on after that line. */
  isPast(last: number): boolean {
    return this.lineNumber > last + 1 || (this.lineNumber === last + 1 && this.lineBegun);
  }

  /** Ends the text, keeping a wanted final line that has no `\n`: the count of all lines. */
  end(): number {
    if (this.endsWithNewline) {
      return this.lineNumber - 1;
    }
    if (this.lineNumber >= this.first && this.lineNumber <= this.last) {
      this.keep();
    }
    return this.lineNumber;
  }

  /** Adds `text` from `from` to `to` to the current line, no more of it than `cutAt` allows. */
  private append(text: string, from: number, to: number): void {
    if (to === from) {
      return;
    }
    const room = this.cutAt - this.current.length;
    if (room > 0) {
      this.current += text.slice(from, Math.min(to, from + room));
    }
    this.currentLength += to - from;
    this.endsWithReturn = text.charCodeAt(to - 1) === 13;
  }

  /** Keeps the current line (cut to `cutAt`, its length noted when longer) and starts the next. */
  private keep(): void {
    if (this.currentLength > this.cutAt) {
      this.lengths.set(this.lineNumber, this.currentLength - (this.endsWithReturn ? 1 : 0));
    }
    this.kept.push(this.current);
    this.current = "";
    this.currentLength = 0;
    this.endsWithReturn = false;
  }
}
