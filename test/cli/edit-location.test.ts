import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { editCall, interactiveTest } from "./interactive-support.js";

// Trial 40 F13: an edit's permission question and its finished call showed `- d` / `+ D changed`
// and nothing else: no line number, no line around it, so in a long file the user could not tell
// where the change lands. Both now show the change in its file: each row's line number, and the
// lines around it (three in the question, one under the finished call).

const SEVEN_LINES = "a\nb\nc\nd\ne\nf\ng\n";

describe("an edit's permission question on plain lines", () => {
  test("shows the change's lines numbered among the file's lines around it", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "notes"));
    const path = join(repository, "notes", "plan.md");
    await writeFile(path, SEVEN_LINES);
    model.enqueue(editCall("call_1", "notes/plan.md", "d", "D changed"), { text: "Edited." });
    const result = await cli([], { stdin: "change d\ny\n" });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    const top = lines.indexOf(`    ${path} (1 line becomes 1)`);
    expect(lines.slice(top, top + 10), result.stdout).toEqual([
      `    ${path} (1 line becomes 1)`,
      "    1   a",
      "    2   b",
      "    3   c",
      "    4 - d",
      "    4 + D changed",
      "    5   e",
      "    6   f",
      "    7   g",
      expect.stringMatching(/^\[y\] yes, once/),
    ]);
    expect(await readFile(path, "utf8")).toBe("a\nb\nc\nD changed\ne\nf\ng\n");
    // Session 41: `sessions show` draws the finished call's change as the screen does, from the
    // one place (session-model/edit-change.ts): numbered, a line of the file either side.
    const shown = await cli(["sessions", "show", printedSessionId(result.stdout)]);
    const rows = shown.stdout.split("\n");
    const call = rows.findIndex((row) => row.startsWith("→ edit("));
    expect(rows.slice(call + 1, call + 5), shown.stdout).toEqual([
      "    3   c",
      "    4 - d",
      "    4 + D changed",
      "    5   e",
    ]);
  });
});

describe.skipIf(tmuxMissing())("an edit's finished call on the interactive screen", () => {
  interactiveTest(
    "shows its lines numbered, a line of the file either side",
    async ({ fixture }) => {
      await mkdir(join(fixture.repository, "notes"));
      await writeFile(join(fixture.repository, "notes", "plan.md"), SEVEN_LINES);
      fixture.server.enqueue(editCall("call_1", "notes/plan.md", "d", "D changed"), {
        text: "Edited.",
      });
      const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 100, rows: 40 });
      terminal.type("change d");
      await terminal.waitFor(/Edited\./);
      const rows = (await terminal.idle()).split("\n").map((row) => row.trimEnd());
      const call = rows.findIndex((row) => row.startsWith("✓ edit notes/plan.md"));
      expect(rows.slice(call, call + 5)).toEqual([
        expect.stringMatching(/^✓ edit notes\/plan\.md +[\d.]+ (?:ms|s|min)$/),
        "  3   c",
        "  4 - d",
        "  4 + D changed",
        "  5   e",
      ]);
    },
  );
});
