import { describe, expect, test } from "vitest";
import { markdownRenderer, withCheckboxes } from "../../src/cli/markdown.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// One Markdown renderer for the interactive screen and `-p` on a terminal (issue 24 item 5): the
// cases the two used to disagree on — task-list checkboxes, backticks in list items, quotations
// wrapped at the width — drawn the same on both faces.

const REPLY = [
  "Steps:",
  "",
  "- [ ] write the test",
  "- [x] run `npm test` first",
  "",
  "> A quotation long enough that it has to wrap at the width of the terminal, twice over at least.",
].join("\n");

/** What both faces show for {@link REPLY} at 60 columns. */
const SHOWN = [
  "Steps:",
  "",
  "- ☐ write the test",
  "- ☑ run npm test first",
  "",
  "│ A quotation long enough that it has to wrap at the width",
  "│ of the terminal, twice over at least.",
];

/** The screen's lines from the answer's first line through its last (trailing blanks cut). */
function answerOn(screen: string): string[] {
  const lines = screen.split("\n").map((line) => line.trimEnd());
  const first = lines.indexOf("Steps:");
  const last = lines.findIndex((line) => line.includes("twice over at least."));
  return lines.slice(first, last + 1);
}

describe("the Markdown renderer", () => {
  test.each([
    ["- [ ] open\n- [x] done\n* [X] also done", "- ☐ open\n- ☑ done\n* ☑ also done"],
    ["1. [ ] first\n2) [x] second", "1. ☐ first\n2) ☑ second"],
    [
      "```md\n- [ ] kept in code\n```\n- [ ] outside",
      "```md\n- [ ] kept in code\n```\n- ☐ outside",
    ],
    ["~~~\n- [x] kept\n~~~", "~~~\n- [x] kept\n~~~"],
    ["- [link](x) is not a box", "- [link](x) is not a box"],
  ])("task-list boxes: %j", (markdown, expected) => {
    expect(withCheckboxes(markdown)).toBe(expected);
  });

  test("-p's renderer draws the disputed cases as listed, in colour, without padding", () => {
    const rendered = markdownRenderer(60)(REPLY);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are stripped to compare text.
    const text = rendered.replace(/\u001b\[[0-9;]*m/g, "");
    expect(text).toBe(`${SHOWN.join("\n")}\n`);
    expect(rendered).not.toBe(text);
  });
});

describe.skipIf(tmuxMissing())("the same Markdown on both terminal faces", () => {
  interactiveTest(
    "checkboxes, backticks in list items and a wrapped quotation: -p and the interactive screen",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: REPLY }, { text: REPLY });
      const printed = fixture.open(["-p", "show the steps"], { columns: 60 });
      const printedScreen = await printed.waitFor(/\[exit 0\]/);
      const interactive = await fixture.openReady([], { columns: 60, rows: 30 });
      interactive.type("show the steps");
      const interactiveScreen = await interactive.waitFor(/twice over at least\./);
      expect(answerOn(printedScreen)).toEqual(SHOWN);
      expect(answerOn(interactiveScreen)).toEqual(SHOWN);
    },
  );
});
