import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, realpath, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { fileDiff } from "../../src/tools/line-diff.js";
import { replaceOnce } from "../../src/tools/text-replacement.js";
import { MAX_VIEW_FILE_BYTES } from "../../src/tools/view.js";
import {
  knownFile,
  type MemoryChildOutput,
  makeContext,
  runInMemoryChild,
  runTool,
  sharedFixture,
  useTemporaryDirectory,
  writeLoremFile,
} from "./tool-context.js";

// Trial 32 (a daily driver's): a one-line `edit` of a 50 MiB log peaked at about 830 MB of
// resident memory, some sixteen copies of the file: its bytes decoded, encoded again to check the
// round trip, its UTF-16 bytes hashed whole (twice as big as the file), both whole texts split
// into 2.6 million lines for the diff, the new text split again to count U+FFFD, and a miss split
// and normalised whole. The edit now holds the file's bytes, its text, the new text and its bytes,
// and reads the diff from the lines around the change.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** Copies a 50 MiB file of numbered `lorem ipsum` lines, written once for this file, to `path`. */
const copyLoremFile = sharedFixture((path) => writeLoremFile(path, MAX_VIEW_FILE_BYTES));

/** Runs `edit` with `calls` at once in a child process, the model knowing the files of `hashes`. */
function editInChild(calls: readonly object[], hashes: Record<string, string>): MemoryChildOutput {
  return runInMemoryChild(directory, calls, "edit", hashes);
}

/** tool-support.ts `textHash` of a UTF-8 file's text, read a piece at a time. */
async function fileTextHash(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const piece of createReadStream(path, { encoding: "utf8" })) {
    hash.update(piece as string, "utf16le");
  }
  return hash.digest("hex");
}

describe("edit of a 50 MiB file", () => {
  it("holds a few copies of it, not sixteen: a one-line edit of a file the model viewed", {
    timeout: 120_000,
  }, async () => {
    const path = join(directory, "big.log");
    copyLoremFile(path);
    const { size } = await stat(path);
    const real = await realpath(path);
    const edit = { path: "big.log", old_str: "2000000 lorem ipsum\n", new_str: "2000000 Lorem\n" };
    const { grownKiB, results } = editInChild([edit], { [real]: await fileTextHash(path) });
    const context = [1_999_997, 1_999_998, 1_999_999].map((line) => ` ${line} lorem ipsum`);
    const after = [2_000_001, 2_000_002, 2_000_003].map((line) => ` ${line} lorem ipsum`);
    expect(results).toEqual([
      {
        isError: false,
        content: [
          `File ${path} updated with changes.`,
          "",
          "@@ -1999997,7 +1999997,7 @@",
          ...context,
          "-2000000 lorem ipsum",
          "+2000000 Lorem",
          ...after,
        ].join("\n"),
        knownFile: { path: real, sha256: await fileTextHash(path) },
      },
    ]);
    const text = await readFile(path, "utf8");
    expect([text.length, text.split("Lorem").length]).toEqual([size - 6, 2]);
    expect(text).toContain("\n1999999 lorem ipsum\n2000000 Lorem\n2000001 lorem ipsum\n");
    // About 4 copies (198 MiB): the file's bytes and text, the new text and its bytes. Before,
    // about 15 (726 to 746 MiB).
    expect(grownKiB).toBeLessThan((6 * size) / 1024);
  });

  it("holds a few copies of it for a miss and for an ambiguous old_str, at once", {
    timeout: 120_000,
  }, async () => {
    const path = join(directory, "big.log");
    copyLoremFile(path);
    const { size } = await stat(path);
    const { grownKiB, results } = editInChild(
      [
        { path: "big.log", old_str: "2000000  lorem ipsum\n  2000001 lorem", new_str: "x" },
        { path: "big.log", old_str: "00000 lorem ipsum\n", new_str: "x" },
      ],
      {},
    );
    const lines = Array.from({ length: 20 }, (_, index) => (index + 1) * 100_000);
    expect(results).toEqual([
      {
        isError: true,
        content:
          `old_str was not found in ${path}; the file was not changed. It does match at line ` +
          "2000000 if whitespace and line endings are ignored: copy the indentation, spaces and " +
          "line breaks exactly as the file has them.",
      },
      {
        isError: true,
        content:
          `old_str matches 26 places in ${path} (lines ${lines.join(", ")} and 6 more); it must ` +
          "match exactly one. Add surrounding lines to old_str to make it unique. The file was " +
          "not changed.",
      },
    ]);
    // Two calls, each with the file's bytes and text: about 3.5 copies (178 MiB). Before, about 9
    // (439 MiB).
    expect(grownKiB).toBeLessThan((6 * size) / 1024);
  });
});

describe("the diff of an edit, read from the lines around it", () => {
  const edits: Array<[name: string, text: string, oldString: string, newString: string]> = [
    ["one line", "a\nb\nc\nd\ne\nf\ng\nh\n", "d\n", "D\n"],
    ["lines for fewer", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "4\n5\n6\n", "x\ny\n"],
    ["CRLF lines", "a\r\nb\r\nc\r\nd\r\n", "b\nc", "B\nC\nC2"],
    ["a last line without a line break", "a\nb\nc", "c", "C\nD"],
    ["the final line break removed", "a\nb\nc\n", "c\n", "c"],
    ["UTF-8 multi-byte", "é\n€\n𝄞\nß\n", "€\n𝄞", "€€\n🎉"],
    ["at the start", "first\nsecond\nthird\n", "first", "FIRST"],
    ["at the end", "first\nsecond\nthird\n", "third\n", "3rd\nfourth\n"],
    ["within a line", "one two three\nfour\n", "two", "2"],
    ["the whole file", "only\n", "only\n", "new\n"],
    ["everything removed", "only", "only", ""],
    ["a long line", `${"x".repeat(400)}\nshort\n`, "short", "long"],
    [
      "many lines for many",
      Array.from({ length: 60 }, (_, index) => `line ${index}`).join("\n"),
      "line 5\nline 6\n",
      Array.from({ length: 30 }, (_, index) => `new ${index}\n`).join(""),
    ],
    ["unchanged lines at both ends", "a\nb\nc\nd\ne\n", "b\nc\nd", "b\nC\nd"],
  ];

  it("is the hunk of the two whole texts", () => {
    for (const [name, text, oldString, newString] of edits) {
      const replacement = replaceOnce(text, oldString, newString);
      if (replacement.kind !== "replaced") {
        throw new Error(`${name}: ${replacement.kind}`);
      }
      expect(replacement.diff, name).toBe(fileDiff(text, replacement.text));
    }
  });

  it("shows a line added among identical ones next to where it was added", () => {
    const text = `head\n${"z\n".repeat(20)}tail\n`;
    const replacement = replaceOnce(text, "head\nz\n", "head\nz\nz\n");
    // The diff of the whole texts showed it after line 21, just above `tail`.
    expect(replacement).toEqual({
      kind: "replaced",
      text: `head\n${"z\n".repeat(21)}tail\n`,
      diff: "@@ -4,3 +4,4 @@\n z\n z\n z\n+z",
    });
  });
});

describe("a miss's lines where old_str matches loosely, in a file of 10,000 lines", () => {
  it("finds matches across the blocks of lines it reads, up to 1,000", () => {
    const lines = Array.from({ length: 10_000 }, (_, index) => `line ${index + 1}`);
    for (const at of [1, 4_094, 4_096, 8_192, 9_999]) {
      lines[at - 1] = "  alpha   beta";
      lines[at] = "\tgamma";
    }
    const text = lines.join("\n");
    expect(replaceOnce(text, "alpha beta\ngamma", "x")).toEqual({
      kind: "not-found",
      looseMatchLines: [1, 4_094, 4_096, 8_192, 9_999],
      looseMatchesCut: false,
    });
    const spaced = Array.from({ length: 3_000 }, () => "x  y").join("\n");
    expect(replaceOnce(spaced, "x y\nx y", "z")).toEqual({
      kind: "not-found",
      looseMatchLines: Array.from({ length: 1_000 }, (_, index) => index + 1),
      looseMatchesCut: true,
    });
  });
});

describe("the hash of an edited text over 64 Ki characters", () => {
  it("is that of its UTF-16 code units whole, a pair split between the pieces hashed", async () => {
    const text = `${"a".repeat(65_535)}𝄞${"b\n".repeat(40_000)}`;
    await writeFile(join(directory, "long.txt"), `\uFEFF${text}`);
    const answer = await runTool(
      editTool,
      { path: "long.txt", old_str: "a𝄞", new_str: "A𝄞" },
      makeContext(directory),
    );
    const path = await realpath(join(directory, "long.txt"));
    expect(answer.knownFile).toEqual(
      knownFile(path, `${"a".repeat(65_534)}A𝄞${"b\n".repeat(40_000)}`),
    );
  });
});

describe("edit: an old_str matching more places than are counted", () => {
  it("says 'at least' the count where counting stops (trial 41 F6: 2,000,000 matches read '1000')", async () => {
    const path = join(directory, "oneline.txt");
    await writeFile(path, `${"x".repeat(2_000_000)}\n${"y".repeat(10)}\n`);
    const result = await runTool(
      editTool,
      { path: "oneline.txt", old_str: "x".repeat(10), new_str: "z" },
      makeContext(directory),
    );
    const fewer = await runTool(
      editTool,
      { path: "oneline.txt", old_str: "y".repeat(9), new_str: "z" },
      makeContext(directory),
    );
    await writeFile(join(directory, "loose.txt"), "a b\n".repeat(2000));
    const loose = await runTool(
      editTool,
      { path: "loose.txt", old_str: "a  b", new_str: "z" },
      makeContext(directory),
    );
    const first = Array.from({ length: 20 }, (_, index) => index + 1).join(", ");
    expect(loose.content).toBe(
      `old_str was not found in ${join(directory, "loose.txt")}; the file was not changed. It ` +
        `does match at lines ${first} and at least 980 more if whitespace and line endings are ` +
        "ignored: copy the indentation, spaces and line breaks exactly as the file has them.",
    );
    expect([result.content, fewer.content]).toEqual([
      `old_str matches at least 1000 places in ${path} (the first 1000 on line 1); it must match ` +
        "exactly one. Add surrounding lines to old_str to make it unique. The file was not changed.",
      `old_str matches 2 places in ${path} (line 2); it must match exactly one. Add surrounding ` +
        "lines to old_str to make it unique. The file was not changed.",
    ]);
  });
});
