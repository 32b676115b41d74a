import { closeSync, openSync, writeSync } from "node:fs";
import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_VIEW_FILE_BYTES, viewTool } from "../../src/tools/view.js";
import {
  makeContext,
  runInMemoryChild,
  runTool,
  sharedFixture,
  useTemporaryDirectory,
} from "./tool-context.js";

// Round 3 session 37's F8: a `view_range` of a file over 50 MiB was refused by the file's size,
// though a range needs only its lines. A range is now read a piece at a time up to its last
// line, keeping only the lines shown; a whole view of such a file stays refused, and says a
// range works.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** Lines of the huge file: 61 MiB of 32-byte lines. */
const LINES = (61 * 1024 * 1024) / 32;

/** Line `number` of the huge file, without its `\n`: 31 bytes. */
function line(number: number): string {
  return `line ${String(number).padStart(10, "0")} ${"x".repeat(15)}`;
}

/**
 * Writes {@link LINES} lines of {@link line} to `path`, 32 768 lines (1 MiB) at a time: one
 * buffer of the lines' shape whose 10 digits are written again for each chunk (the same bytes as
 * the chunk's lines joined, at a twentieth of the CPU: 0.2 s for the file against 3.7-4.4 s).
 */
function writeHugeFile(path: string): void {
  const chunk = Buffer.from(Array.from({ length: 32_768 }, () => `${line(0)}\n`).join(""));
  const file = openSync(path, "w");
  try {
    for (let first = 1; first <= LINES; first += 32_768) {
      for (let index = 0; index < 32_768; index += 1) {
        writeDigits(chunk, index * 32 + 5, first + index);
      }
      writeSync(file, chunk);
    }
  } finally {
    closeSync(file);
  }
}

/** Writes `number` as {@link line} does, 10 digits padded with zeros, into `buffer` at `at`. */
function writeDigits(buffer: Buffer, at: number, number: number): void {
  let rest = number;
  for (let digit = at + 9; digit >= at; digit -= 1) {
    buffer[digit] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
}

/** Copies the huge file, written once for this file, to `path`. */
const copyHugeFile = sharedFixture(writeHugeFile);

/** `view`'s numbered lines `first` to `last` of the huge file. */
function numbered(first: number, last: number): string[] {
  return Array.from({ length: last - first + 1 }, (_, index) => {
    return `${first + index}. ${line(first + index)}`;
  });
}

describe("view of a file over 50 MiB", () => {
  it("shows a view_range of it, refuses a whole view with a word on ranges", {
    timeout: 120_000,
  }, async () => {
    const path = join(directory, "huge.log");
    copyHugeFile(path);
    const context = makeContext(directory);
    const view = (range?: number[]) =>
      runTool(viewTool, range === undefined ? { path } : { path, view_range: range }, context);
    const size = LINES * 32;
    expect(size).toBeGreaterThan(MAX_VIEW_FILE_BYTES);
    const answers = await Promise.all([
      view([1, 3]),
      view([LINES - 1, -1]),
      view([LINES - 1, LINES + 10]),
      view([LINES + 1, LINES + 2]),
      view([5, 3]),
      view([5, -1]),
      view(),
    ]);
    expect(answers).toEqual([
      { content: numbered(1, 3).join("\n"), isError: false },
      { content: numbered(LINES - 1, LINES).join("\n"), isError: false },
      { content: numbered(LINES - 1, LINES).join("\n"), isError: false },
      {
        content: `Invalid view_range: line ${LINES + 1} is past the end of the file (${LINES} lines).`,
        isError: true,
      },
      {
        content: "Invalid view_range [5, 3]: end must be at least start, or -1.",
        isError: true,
      },
      {
        content: [
          ...numbered(5, 2004),
          "[Output cut: showing lines 5-2004; the file goes on (too large to count its lines). " +
            "Use view_range [2005, 4004] to read more.]",
        ].join("\n"),
        isError: false,
      },
      {
        content:
          `File is too large to view whole (${size} bytes; the limit is ${MAX_VIEW_FILE_BYTES} ` +
          "bytes). Use view_range [start, end] to read up to 2000 of its lines, grep to find " +
          "lines, or bash (e.g. sed -n '100,200p') to print a part.",
        isError: true,
      },
    ]);
  });

  it("says a huge file that is not UTF-8 text is not shown, by a range either", async () => {
    const path = join(directory, "sparse.bin");
    await writeFile(path, "");
    await truncate(path, MAX_VIEW_FILE_BYTES + 1);
    const result = await runTool(viewTool, { path, view_range: [1, 2] }, makeContext(directory));
    expect(result).toEqual({
      content:
        `File is too large to view whole (${MAX_VIEW_FILE_BYTES + 1} bytes; the limit is ` +
        `${MAX_VIEW_FILE_BYTES} bytes), and a view_range reads only UTF-8 text: this file is ` +
        "binary or in another encoding. Use grep to find lines, or bash (e.g. sed -n '100,200p') " +
        "to print a part.",
      isError: true,
    });
  });

  it("holds far less than the file: two 5-line views of it at once", { timeout: 120_000 }, () => {
    copyHugeFile(join(directory, "huge.log"));
    const calls = [1, LINES - 4].map((start) => ({
      path: "huge.log",
      view_range: [start, start + 4],
    }));
    const { grownKiB, results } = runInMemoryChild(directory, calls);
    expect(results.map((result) => result.content)).toEqual([
      numbered(1, 5).join("\n"),
      numbered(LINES - 4, LINES).join("\n"),
    ]);
    // Read whole, one such view would hold the 61 MiB file several times over.
    expect(grownKiB).toBeLessThan(MAX_VIEW_FILE_BYTES / 1024);
  });

  it("holds a wanted 60 MiB line with no line break cut to what it shows, never whole", {
    timeout: 120_000,
  }, () => {
    // Session 38: the 2,000-character cut came after the whole line was read into memory.
    const length = 60 * 1024 * 1024;
    const file = openSync(join(directory, "one-line.log"), "w");
    try {
      writeSync(file, "first\n");
      const piece = "y".repeat(1024 * 1024);
      for (let written = 0; written < length; written += piece.length) {
        writeSync(file, piece);
      }
      writeSync(file, "\r\nlast\n");
    } finally {
      closeSync(file);
    }
    const { grownKiB, results } = runInMemoryChild(directory, [
      { path: "one-line.log", view_range: [1, 3] },
    ]);
    const cut = `${"y".repeat(2_000)} [… line cut, ${length - 2_000} more characters]`;
    expect(results.map((result) => result.content)).toEqual([`1. first\n2. ${cut}\n3. last`]);
    // Held whole, the line alone is 60 MiB (twice that once it is cut from its pieces).
    expect(grownKiB).toBeLessThan(24 * 1024);
  });
});
