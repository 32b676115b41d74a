import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/tools/define-tool.js";
import { MAX_VIEW_FILE_BYTES, viewTool } from "../../src/tools/view.js";
import {
  makeContext,
  runInMemoryChild,
  runTool,
  useTemporaryDirectory,
  writeLoremFile,
} from "./tool-context.js";

// Trial 32, F2: a `view_range` of a 50 MiB file read it whole, decoded it and split it into
// 2.7 million strings (385 MB peak for 21 lines; six such calls at once 615 MB). A file over
// 1 MiB read from disk is now read a piece at a time, keeping only the lines shown.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** The same context with a client that reads the file from disk: `view` then reads it whole. */
function throughClient(context: ToolContext): ToolContext {
  return { ...context, client: { readTextFile: (path) => readFile(path, "utf8") } };
}

describe("view of a file over 1 MiB", () => {
  it("shows what reading it whole shows, ranges, cut notes and errors alike", async () => {
    // Multi-byte characters across the 1 MiB pieces, CRLF lines, a long line, no final newline.
    const lines = Array.from({ length: 60_000 }, (_, index) =>
      index % 7 === 0 ? `line ${index + 1} é€𝄞 text\r` : `line ${index + 1} plain text`,
    );
    lines[20_000] = "x".repeat(5_000);
    // Long lines cut while read: one past the cut by its \r alone, one with a \r at the cut.
    lines[20_001] = `${"y".repeat(2_000)}\r`;
    lines[20_002] = `${"z".repeat(1_999)}\r${"z".repeat(3_000)}\r`;
    const text = lines.join("\n");
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    await writeFile(join(directory, "big.txt"), text);
    const context = makeContext(directory);
    const ranges = [undefined, [1, 3], [19_999, 20_003], [59_999, -1], [60_000], [60_001], [5, 3]];
    for (const range of ranges) {
      const args =
        range === undefined ? { path: "big.txt" } : { path: "big.txt", view_range: range };
      const inPieces = await runTool(viewTool, args, context);
      const whole = await runTool(viewTool, args, throughClient(context));
      expect(inPieces, JSON.stringify(range)).toEqual(whole);
    }
    const cut = await runTool(viewTool, { path: "big.txt" }, context);
    expect(cut.content.split("\n").at(-1)).toBe(
      "[Output cut: showing lines 1-2000 of 60000. Use view_range [2001, 4000] to read more.]",
    );
  });

  it("reads a big file that is not plain UTF-8 whole, as before", async () => {
    const latin = Buffer.concat([
      Buffer.alloc(2 * 1024 * 1024, "abc\n"),
      Buffer.from("caf\xe9\n", "latin1"),
    ]);
    await writeFile(join(directory, "latin.txt"), latin);
    const withNul = Buffer.concat([Buffer.alloc(2 * 1024 * 1024, "abc\n"), Buffer.from([0])]);
    await writeFile(join(directory, "nul.txt"), withNul);
    const context = makeContext(directory);
    const answers = await Promise.all([
      runTool(viewTool, { path: "latin.txt", view_range: [524_289, -1] }, context),
      runTool(viewTool, { path: "nul.txt", view_range: [1, 2] }, context),
    ]);
    expect(answers.map((answer) => answer.content)).toEqual([
      "524289. café\n[The file is not valid UTF-8; it was decoded as windows-1252 (Latin-1).]",
      `Binary file (${2 * 1024 * 1024 + 1} bytes): not shown as text.`,
    ]);
  });

  it("holds far less than the file: six 5-line views of a 50 MiB file at once", () => {
    writeLoremFile(join(directory, "big50.txt"), MAX_VIEW_FILE_BYTES);
    const calls = [1, 6, 11, 16, 2_000_000, 2_600_000].map((start) => ({
      path: "big50.txt",
      view_range: [start, start + 4],
    }));
    const { grownKiB, results } = runInMemoryChild(directory, calls);
    expect(results.map((result) => result.content.split("\n")[0])).toEqual([
      "1. 1 lorem ipsum",
      "6. 6 lorem ipsum",
      "11. 11 lorem ipsum",
      "16. 16 lorem ipsum",
      "2000000. 2000000 lorem ipsum",
      "2600000. 2600000 lorem ipsum",
    ]);
    // Read whole, the six views grew the process by 600 MiB;
    // read in pieces, by about 24 MiB (V8's young generation, whatever the file's size).
    expect(grownKiB).toBeLessThan(MAX_VIEW_FILE_BYTES / 1024);
  });
});
