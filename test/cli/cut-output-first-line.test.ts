import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cutResult } from "../../src/agent/result-budget.js";
import { hiddenLinesNote, outputLines } from "../../src/cli/output-lines.js";
import { ProcessRunner } from "../../src/tools/process-runner.js";
import { commandRequest, useTemporaryDirectory } from "../tools/tool-context.js";

// Trial 45 F2: `head -c 300000 /dev/zero | tr '\0' x; echo; echo 'ERROR: real failure'; exit 7`
// kept `ERROR: real failure` for the model, whole, after the cut marker, but every face took the
// line after the marker for a piece of a line the cut began in: it showed no line and said
// `… 2 more lines`. Every writer of the marker now marks a piece that starts inside a line
// (tools/command-output.ts `PARTIAL_LINE_MARK`), and cli/output-lines.ts `outputLines`, which every
// face reads a cut output through, shows the first whole line kept and counts the rest exactly.

let directory: string;

useTemporaryDirectory((path) => {
  directory = path;
});

/** The model's copy of `command`'s output, cut past 1,000 characters (400 head, 600 tail). */
async function cutOutput(command: string): Promise<string> {
  const result = await new ProcessRunner({ maxOutputCharacters: 1_000 }).run(
    command,
    commandRequest(directory),
  );
  expect(result.truncated).toBe(true);
  return result.output;
}

const SAVED = () => `full output saved to ${join(directory, "saved", "output.txt")}`;

/** Line `index` of the eight-line output: 150 x's, then ` END<index>`. */
const endLine = (index: number) => `${"x".repeat(150)} END${index}`;
const EIGHT_LINES = `for i in 1 2 3 4 5 6 7 8; do printf 'x%.0s' $(seq 150); echo " END$i"; done; exit 7`;

describe("the first whole line kept after a cut output's marker", () => {
  it("is shown when the cut started inside a line and ended on a line break: the failure line, one line left out", async () => {
    const output = await cutOutput(
      "head -c 3000 /dev/zero | tr '\\0' x; echo; echo 'ERROR: real failure'; exit 7",
    );
    expect(output.endsWith("omitted; ".concat(SAVED(), "]\nERROR: real failure\n"))).toBe(true);
    expect(outputLines(output, { last: 5 })).toEqual({
      first: [],
      last: ["ERROR: real failure"],
      hidden: 1,
      total: 2,
      saved: SAVED(),
    });
  });

  it("is shown when the head kept whole lines too: END6 to END8 after END1 and END2, three lines between", async () => {
    const output = await cutOutput(EIGHT_LINES);
    const all = { first: Number.POSITIVE_INFINITY, last: Number.POSITIVE_INFINITY };
    expect(outputLines(output, all)).toEqual({
      first: [endLine(1), endLine(2)],
      last: [6, 7, 8].map(endLine),
      hidden: 3,
      total: 8,
      saved: SAVED(),
    });
    expect(outputLines(output, { last: 5 })).toEqual({
      first: [],
      last: [6, 7, 8].map(endLine),
      hidden: 5,
      total: 8,
      saved: SAVED(),
    });
  });

  it("is shown from inside when the cut ended inside it (one long last line): marked with `…`, the lines before it whole", async () => {
    const output = await cutOutput("seq 1 3; head -c 3000 /dev/zero | tr '\\0' y; echo; exit 7");
    const piece = `\u2026${"y".repeat(599)}`;
    expect(output).toBe(
      `1\n2\n3\n\n[… part of 1 line (2401 bytes) omitted; ${SAVED()}]\n${piece}\n`,
    );
    const lines = outputLines(output, { first: Number.POSITIVE_INFINITY, last: 5 });
    expect(lines).toEqual({
      first: ["1", "2", "3"],
      last: [piece],
      hidden: 0,
      total: 4,
      saved: SAVED(),
    });
    expect(hiddenLinesNote(lines, "more", "ALL")).toEqual([
      "… part of 1 line; full output saved to",
      join(directory, "saved", "output.txt"),
    ]);
  });

  // Trial 45's LOW: one huge line (a minified JSON error) ending in the words that matter.
  it("is shown, its end, when the whole output is one long line: `part of 1 line` omitted, not `0 lines`", async () => {
    const output = await cutOutput(
      "head -c 3000 /dev/zero | tr '\\0' z; echo ' TAIL-OF-ONLY-LINE'; exit 5",
    );
    const piece = `\u2026${"z".repeat(581)} TAIL-OF-ONLY-LINE`;
    expect(output).toBe(
      `${"z".repeat(400)}\n[… part of 1 line (2019 bytes) omitted; ${SAVED()}]\n${piece}\n`,
    );
    const lines = outputLines(output, { last: 5 });
    expect(lines).toEqual({ first: [], last: [piece], hidden: 0, total: 1, saved: SAVED() });
    expect(hiddenLinesNote(lines, "earlier", "ALL")).toEqual([
      "… part of 1 line; full output saved to",
      join(directory, "saved", "output.txt"),
    ]);
    // Cut to a display's width from its start, so its end is what is seen.
    expect(outputLines(output, { last: 5, width: 30 }).last).toEqual([
      `\u2026${"z".repeat(11)} TAIL-OF-ONLY-LINE`,
    ]);
  });

  it("is shown, the last line's end, when the cut began in the first of three long lines and ended in the last", async () => {
    const output = await cutOutput(
      "for i in 1 2 3; do head -c 3000 /dev/zero | tr '\\0' y; echo \" END$i\"; done; exit 3",
    );
    const piece = `\u2026${"y".repeat(594)} END3`;
    expect(output).toContain(`[… 2 lines (8018 bytes) omitted; ${SAVED()}]\n${piece}\n`);
    const lines = outputLines(output, { last: 5 });
    expect(lines).toEqual({ first: [], last: [piece], hidden: 2, total: 3, saved: SAVED() });
    expect(hiddenLinesNote(lines, "earlier", "ALL")).toEqual([
      "… 2 earlier lines; full output saved to",
      join(directory, "saved", "output.txt"),
    ]);
  });

  it("is shown after the turn's result budget cut (agent/result-budget.ts), which starts its tail on a line", () => {
    const text = `${Array.from({ length: 500 }, (_, index) => `line ${index + 1}`).join("\n")}\n`;
    const cut = cutResult(text, 1_000, "WHERE");
    const lines = outputLines(cut, {
      first: Number.POSITIVE_INFINITY,
      last: Number.POSITIVE_INFINITY,
    });
    // Every line shown is whole and in place: the head's from line 1, the tail's on to line 500.
    const numbers = [...lines.first, ...lines.last].map((line) => Number(line.slice(5)));
    const headCount = lines.first.length;
    expect(lines.first).toEqual(numbers.slice(0, headCount).map((_, index) => `line ${index + 1}`));
    expect(lines.last).toEqual(
      lines.last.map((_, index) => `line ${500 - lines.last.length + 1 + index}`),
    );
    expect({ hidden: lines.hidden, total: lines.total, saved: lines.saved }).toEqual({
      hidden: 500 - lines.first.length - lines.last.length,
      total: 500,
      saved: "WHERE",
    });
  });

  it("is shown from inside when the result budget's tail starts inside one long line: marked, `part of 1 line` omitted", () => {
    const text = `first\n${"z".repeat(5_000)}\n`;
    const cut = cutResult(text, 1_000, "WHERE");
    const piece = `\u2026${"z".repeat(381)}`;
    expect(cut).toBe(
      `first\n${"z".repeat(567)}\n[… part of 1 line (4052 bytes) omitted; WHERE]\n${piece}\n`,
    );
    expect(outputLines(cut, { first: Number.POSITIVE_INFINITY, last: 5 })).toEqual({
      first: ["first"],
      last: [piece],
      hidden: 0,
      total: 2,
      saved: "WHERE",
    });
  });
});
