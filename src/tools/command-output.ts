import { chmodSync, createWriteStream, readdirSync, statSync, type WriteStream } from "node:fs";
import { unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { errorMessage, makeFoldersSync } from "../events/errors.js";
import { SecretStreamRedactor, type SecretValue } from "../events/secrets.js";

/** Bytes written to the saved-output file at most, so that `yes` cannot fill the disk. */
const MAX_SAVED_BYTES = 64 * 1024 * 1024;

/**
 * Bytes the saved outputs of one session's folder (`tool-outputs/`) hold at most, all calls
 * together (README, "Commands the model runs"): a call past it saves what fits, then nothing more is saved, each
 * result saying so. 256 MiB.
 */
export const MAX_SESSION_SAVED_BYTES = 256 * 1024 * 1024;

/** The bytes of the files in `folder` (not below it); 0 when it cannot be read. */
function folderBytes(folder: string): number {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + statSync(join(folder, entry.name)).size, 0);
  } catch {
    return 0;
  }
}

/**
 * The line {@link CommandOutput.preview} puts between the head and the tail of an output past its
 * limit: `[… N lines cut …]`, N the line breaks of the text left out (`[… output cut …]` when
 * none: the cut is inside one line). A face that prints the output as it comes reads where the
 * tail's lines stand from it ({@link previewCut}).
 */
function cutMarker(lineBreaks: number): string {
  if (lineBreaks === 0) {
    return "[… output cut …]";
  }
  return `[… ${lineBreaks} ${lineBreaks === 1 ? "line" : "lines"} cut …]`;
}

/**
 * {@link cutMarker} on its own line between head and tail; group 1 is N. (`\u2026` is `…`: the
 * scripts loaded before `-p`'s first request are ASCII, test/cli/modules-loaded.test.ts.)
 */
const CUT_LINE = /\n\[\u2026 (?:output|(\d+) lines?) cut \u2026\]\n/;

/** A preview past the limit, read back: its head, the line breaks cut after it, its tail. */
export interface PreviewCut {
  head: string;
  /** Line breaks in the text between head and tail. */
  cutLineBreaks: number;
  tail: string;
}

/**
 * Reads a {@link CommandOutput.preview} (also after `plainText`, which keeps line breaks): its
 * head, the count of line breaks cut and its tail; `undefined` for an output shown whole. The
 * first marker line counts: the head is the runner's, a fixed length, before anything the
 * command printed later.
 */
export function previewCut(preview: string): PreviewCut | undefined {
  const match = CUT_LINE.exec(preview);
  if (match === null) {
    return undefined;
  }
  return {
    head: preview.slice(0, match.index),
    cutLineBreaks: Number(match[1] ?? 0),
    tail: preview.slice(match.index + match[0].length),
  };
}

/** What {@link omittedMarker} counts for a cut inside one line (no line break left out). */
export const PART_OF_ONE_LINE = "part of 1 line";

/**
 * The marker a result too long to keep whole has where its middle was cut, for the model and
 * every view (cli/output-lines.ts `outputLines` reads it): `[… 4,990 lines (18,951 bytes) omitted; WHERE]`,
 * and `[… part of 1 line (B bytes) omitted; WHERE]` when the text left out holds no line break
 * (the cut is inside one line: trial 45 said `0 lines` there). `lineBreaks`: the line breaks in
 * the text left out; `bytes`: its UTF-8 bytes; `where`: where the whole output is, or why it is
 * nowhere.
 */
export function omittedMarker(lineBreaks: number, bytes: number, where: string): string {
  const lines =
    lineBreaks === 0
      ? PART_OF_ONE_LINE
      : `${lineBreaks.toLocaleString("en-US")} ${lineBreaks === 1 ? "line" : "lines"}`;
  return `[… ${lines} (${bytes} bytes) omitted; ${where}]`;
}

/**
 * What starts the text after an {@link omittedMarker}'s line when that text begins inside a line
 * (the cut left out the line's start): `…`. A text after the marker without it starts on a whole
 * line. Every writer of the marker adds it (here, agent/result-budget.ts `cutResult`,
 * tools/mcp/tools.ts), and cli/output-lines.ts `outputLines` reads it, so a face shows the first
 * whole line kept after the cut and counts the lines left out exactly. (`\u2026` is `…`: the
 * scripts loaded before `-p`'s first request are ASCII, test/cli/modules-loaded.test.ts.)
 */
export const PARTIAL_LINE_MARK = "\u2026";

/**
 * `tail` as it follows an {@link omittedMarker}'s line: `startsInsideLine` when the character
 * before it in the whole text was not a line break, then with {@link PARTIAL_LINE_MARK} before it.
 */
export function markedTail(tail: string, startsInsideLine: boolean): string {
  return startsInsideLine ? `${PARTIAL_LINE_MARK}${tail}` : tail;
}

/** A marker {@link omittedMarker} wrote, found in a text, and what it says. */
export interface OmittedMarkerFound {
  /** Where its line starts in the text, and where it ends (before its closing line break). */
  start: number;
  end: number;
  /** The line breaks and bytes it says were left out, and where the whole text is. */
  lineBreaks: number;
  bytes: number;
  where: string;
}

/**
 * {@link omittedMarker} on a line of its own; groups: the line breaks (absent for
 * {@link PART_OF_ONE_LINE}), the bytes, where.
 */
const OMITTED_LINE =
  /\n\[\u2026 (?:([\d,]+) lines?|part of 1 line) \((\d+) bytes\) omitted; ([^\n]*)\]\n/;

/**
 * The first {@link omittedMarker} on a line of its own in `text` (a command's output cut by its
 * runner, then by the turn's result budget: agent/result-budget.ts `cutResult`), or `undefined`.
 */
export function findOmittedMarker(text: string): OmittedMarkerFound | undefined {
  const match = OMITTED_LINE.exec(text);
  if (match === null) {
    return undefined;
  }
  const [line, lineBreaks = "0", bytes = "0", where = ""] = match;
  return {
    start: match.index + 1,
    end: match.index + line.length - 1,
    lineBreaks: Number(lineBreaks.replaceAll(",", "")),
    bytes: Number(bytes),
    where,
  };
}

/** How many line breaks `text` holds from `start` up to `end` (no copy of that part is made). */
export function lineBreaksIn(text: string, start = 0, end = text.length): number {
  let count = 0;
  for (let at = text.indexOf("\n", start); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) {
    count++;
  }
  return count;
}

/**
 * A command's combined output, bounded in memory. Up to `limit` characters it is kept whole; past
 * that only the first 40% and the last 60% of `limit` are kept (errors tend to be at the end), and
 * the raw bytes, from the first (up to 64 MiB, and up to 256 MiB for all the files of
 * `savePath`'s folder: {@link MAX_SESSION_SAVED_BYTES}), are written to `savePath`,
 * with secrets replaced as in `events.jsonl` (`[redacted:NAME]`), in a file of mode 0600 in a
 * folder of mode 0700 (issue 11).
 */
export class CommandOutput {
  private whole = "";
  private head = "";
  private tail = "";
  private truncated = false;
  private totalBytes = 0;
  /** Line breaks in all the text appended, and in {@link head}. */
  private totalLineBreaks = 0;
  private headLineBreaks = 0;
  private savedBytes = 0;
  /** Bytes this call may save: {@link MAX_SAVED_BYTES}, less once the session's cap is near. */
  private saveLimit = MAX_SAVED_BYTES;
  private earlyChunks: Buffer[] = [];
  private file: WriteStream | undefined;
  private fileError: string | undefined;
  private readonly redactor: SecretStreamRedactor;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  /**
   * @param limit characters shown at most (head + tail).
   * @param savePath file that receives the full output once it exceeds `limit`; its folder is
   *   created when needed.
   * @param secrets values replaced in the saved file (the session host's, as for `events.jsonl`).
   * @param onBackpressure called with `true` when the file cannot keep up (pause the producer) and
   *   `false` when it drained.
   */
  constructor(
    private readonly limit: number,
    private readonly savePath: string,
    secrets: readonly SecretValue[],
    private readonly onBackpressure: (paused: boolean) => void = () => {},
  ) {
    this.redactor = new SecretStreamRedactor(secrets);
    this.headLimit = Math.floor(limit * 0.4);
    this.tailLimit = limit - this.headLimit;
  }

  /** Adds a chunk: its raw bytes and their decoded text. */
  append(raw: Buffer, text: string): void {
    this.totalBytes += raw.length;
    const safeText = text.replaceAll("\u0000", "\\0");
    this.totalLineBreaks += lineBreaksIn(safeText);
    if (!this.truncated) {
      this.whole += safeText;
      this.earlyChunks.push(raw);
      if (this.whole.length > this.limit) {
        this.startTruncating();
      }
      return;
    }
    this.tail = (this.tail + safeText).slice(-this.tailLimit - 1);
    this.writeToFile(raw);
  }

  /** Whether the output is past the limit, so that only its head and tail are shown. */
  get cut(): boolean {
    return this.truncated;
  }

  /**
   * The output as shown so far: whole, or once too long its head and tail around a line saying
   * how many line breaks were cut between them ({@link cutMarker}, read by {@link previewCut}).
   */
  preview(): string {
    if (!this.truncated) {
      return this.whole;
    }
    const tail = this.shownTail();
    const cut = this.totalLineBreaks - this.headLineBreaks - lineBreaksIn(tail);
    return `${this.head}\n${cutMarker(cut)}\n${tail}`;
  }

  /**
   * Closes the saved file and answers the text for the model: the whole output, or head and tail
   * around `[… N lines (B bytes) omitted; full output saved to PATH]` ({@link omittedMarker}). A copy whose write failed (a full
   * disk) is removed, and the marker says so, naming the file and the error. Never rejects.
   */
  async finish(): Promise<string> {
    if (!this.truncated) {
      return this.whole;
    }
    await this.closeFile();
    if (this.fileError !== undefined && this.file !== undefined) {
      // A partial copy (a full disk) would keep the disk full and fail the log's next write:
      // the log matters more than the copy, so the copy goes.
      await unlink(this.savePath).catch(() => undefined);
    }
    const { text: tail, startsLine } = this.keptTail();
    const keptBytes = Buffer.byteLength(this.head) + Buffer.byteLength(tail);
    const omitted = Math.max(this.totalBytes - keptBytes, 0);
    let where = `full output saved to ${this.savePath}`;
    const capped = this.saveLimit < MAX_SAVED_BYTES;
    const cap = `this session's saved outputs are capped at ${MAX_SESSION_SAVED_BYTES / 1024 / 1024} MiB`;
    if (this.saveLimit <= 0) {
      where = `the full output was not saved: ${cap}, and that is reached`;
    } else if (this.fileError !== undefined) {
      where =
        this.file === undefined
          ? `the full output could not be saved: ${this.fileError}`
          : `the full output could not be saved to ${this.savePath} (${this.fileError}); the partial copy was removed`;
    } else if (this.savedBytes < this.totalBytes) {
      where = `the first ${this.savedBytes} bytes of the output saved to ${this.savePath}${capped ? ` (${cap})` : ""}`;
    }
    const lineBreaks = this.totalLineBreaks - this.headLineBreaks - lineBreaksIn(tail);
    const marker = omittedMarker(lineBreaks, omitted, where);
    return `${this.head}\n${marker}\n${markedTail(tail, !startsLine)}`;
  }

  /**
   * The tail as shown: from the start of a line (trial 37 F5: it began with a line's last
   * letters, though the marker counts whole lines). The kept window holds one character more
   * than is shown, so a line break just before it is seen; a tail with no line break at all (one
   * long last line) is shown as kept.
   */
  private shownTail(): string {
    const lineStart = this.tail.indexOf("\n") + 1;
    if (lineStart > 0) {
      return this.tail.slice(lineStart);
    }
    return this.tail.length > this.tailLimit ? this.tail.slice(1) : this.tail;
  }

  /**
   * The tail the model reads: from the start of its first line that starts in the kept window
   * (a line break before the window's last character), else the window's end, `startsLine`
   * false (one long last line, or the end of one ending on a line break: its start is cut).
   */
  private keptTail(): { text: string; startsLine: boolean } {
    const lineBreak = this.tail.indexOf("\n");
    if (lineBreak !== -1 && lineBreak < this.tail.length - 1) {
      return { text: this.tail.slice(lineBreak + 1), startsLine: true };
    }
    return { text: this.tail.slice(1), startsLine: false };
  }

  private startTruncating(): void {
    this.truncated = true;
    // The head ends at a line's end when it holds one, as the tail starts at a line's start.
    const head = this.whole.slice(0, this.headLimit);
    const headEnd = head.lastIndexOf("\n") + 1;
    this.head = headEnd > 0 ? head.slice(0, headEnd) : head;
    this.headLineBreaks = lineBreaksIn(this.head);
    this.tail = this.whole.slice(-this.tailLimit - 1);
    this.whole = "";
    const folder = dirname(this.savePath);
    this.saveLimit = Math.min(MAX_SAVED_BYTES, MAX_SESSION_SAVED_BYTES - folderBytes(folder));
    if (this.saveLimit <= 0) {
      this.earlyChunks = [];
      return;
    }
    try {
      makeFoldersSync(folder, 0o700);
      // An older version may have made the folder with the default mode.
      chmodSync(folder, 0o700);
      this.file = createWriteStream(this.savePath, { mode: 0o600 });
      this.file.on("error", (error) => {
        this.fileError = errorMessage(error);
        this.onBackpressure(false);
      });
      this.file.on("drain", () => this.onBackpressure(false));
    } catch (error) {
      this.fileError = errorMessage(error);
    }
    for (const chunk of this.earlyChunks) {
      this.writeToFile(chunk);
    }
    this.earlyChunks = [];
  }

  private writeToFile(raw: Buffer): void {
    const room = this.saveLimit - this.savedBytes;
    if (this.file === undefined || this.fileError !== undefined || room <= 0) {
      return;
    }
    const part = raw.length > room ? raw.subarray(0, room) : raw;
    this.savedBytes += part.length;
    if (!this.file.write(this.redactor.push(part))) {
      this.onBackpressure(true);
    }
  }

  private closeFile(): Promise<void> {
    const file = this.file;
    if (file === undefined || file.destroyed) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      file.once("error", () => resolve());
      file.end(this.redactor.end(), () => resolve());
    });
  }
}
