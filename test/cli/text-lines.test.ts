import { describe, expect, it } from "vitest";
import { lastLinesOf } from "../../src/cli/text-lines.js";

describe("lastLinesOf: a running command's last lines", () => {
  it("answers the last non-blank lines, in order, a line still being written included", () => {
    expect(lastLinesOf("one\ntwo\n\n   \nthree\nfour\nfive\n", 3, 100)).toEqual([
      "three",
      "four",
      "five",
    ]);
    expect(lastLinesOf("one\ntwo\n\nthree\nfour\nfi", 4, 100)).toEqual([
      "two",
      "three",
      "four",
      "fi",
    ]);
    expect(lastLinesOf("only\n\n", 4, 100)).toEqual(["only"]);
    expect(lastLinesOf("", 4, 100)).toEqual([]);
    expect(lastLinesOf("\n\n\n", 4, 100)).toEqual([]);
  });

  it("cuts a long line to its start, never inside a character", () => {
    expect(lastLinesOf(`start\n${"x".repeat(50)}\n`, 2, 10)).toEqual(["start", "x".repeat(10)]);
    // 🙂 is two UTF-16 code units: a cut between them would draw a broken character.
    expect(lastLinesOf(`${"a".repeat(9)}🙂🙂`, 1, 10)).toEqual(["a".repeat(9)]);
    expect(lastLinesOf(`${"a".repeat(8)}🙂🙂`, 1, 10)).toEqual([`${"a".repeat(8)}🙂`]);
  });

  it("keeps at most count × maxLength characters of a huge output", () => {
    const huge = `${"line of output\n".repeat(200_000)}${"y".repeat(1_000_000)}`;
    const lines = lastLinesOf(huge, 4, 1_000);
    expect(lines).toEqual([
      "line of output",
      "line of output",
      "line of output",
      "y".repeat(1_000),
    ]);
  });
});
