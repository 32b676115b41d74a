import { describe, expect, test } from "vitest";
import { wrapChoices, wrapText } from "../../src/cli/text-wrap.js";

describe("wrapText", () => {
  test.each([
    ["not a terminal: unchanged", "a b c d e f", undefined, ["a b c d e f"]],
    [
      "prose at the left edge continues there",
      "one two three four",
      9,
      ["one two", "three", "four"],
    ],
    [
      "a list item two columns past its text",
      "* ask: one two three",
      12,
      ["* ask: one", "    two", "    three"],
    ],
    [
      "a term and its description: under the description",
      "/x  one two three four five six seven eight nine ten eleven twelve",
      30,
      ["/x  one two three four five", "    six seven eight nine ten", "    eleven twelve"],
    ],
    [
      "a term whose description column leaves too little room: the description under it",
      "/x [a b c d e]        one two three four five six",
      24,
      ["/x [a b c d e]", "    one two three four", "    five six"],
    ],
    ["a word wider than a row is cut", "abcdefghij", 4, ["abcd", "efgh", "ij"]],
    [
      "colour codes take no columns and stay with their word",
      "\u001b[1m[a]\u001b[22m yes and more",
      7,
      ["\u001b[1m[a]\u001b[22m yes", "and", "more"],
    ],
    [
      "a continued description is joined, then wrapped again",
      "  --x     one two\n          three four",
      20,
      ["  --x     one two", "          three four"],
    ],
  ] as const)("%s", (_, text, width, rows) => {
    expect(wrapText(text, width).split("\n")).toEqual(rows);
  });
});

test("wrapChoices puts the choices on one row when they fit, else one per row, each continued under its text", () => {
  const choices = ["[y] yes", "[a] always for bash(ls)", "[n] no", "[t] tell"];
  expect(wrapChoices(choices, undefined, "  ")).toEqual([
    "  [y] yes   [a] always for bash(ls)   [n] no   [t] tell",
  ]);
  // A terminal that reports 0 columns (a pseudo-terminal whose size was never set): unknown.
  expect(wrapChoices(choices, 0, "  ")).toEqual([
    "  [y] yes   [a] always for bash(ls)   [n] no   [t] tell",
  ]);
  expect(wrapChoices(choices, 60, "  ")).toEqual([
    "  [y] yes   [a] always for bash(ls)   [n] no   [t] tell",
  ]);
  // Not all on one row: one each, never two sharing a row while another has one of its own.
  expect(wrapChoices(choices, 30, "  ")).toEqual([
    "  [y] yes",
    "  [a] always for bash(ls)",
    "  [n] no",
    "  [t] tell",
  ]);
  // A choice wider than the row continues under its text, past its key (painted or not).
  const long = ["[y] yes", "[a] always for bash(echo 日本語のテキスト日本語) here", "[n] no"];
  expect(wrapChoices(long, 24)).toEqual([
    "[y] yes",
    "[a] always for bash(echo",
    "    日本語のテキスト日本",
    "    語) here",
    "[n] no",
  ]);
  const bold = (text: string) => `\u001b[1m${text}\u001b[22m`;
  expect(wrapChoices([`${bold("[a]")} always for bash(npx tape x)`, "[n] no"], 20)).toEqual([
    `${bold("[a]")} always for`,
    "    bash(npx tape x)",
    "[n] no",
  ]);
});
