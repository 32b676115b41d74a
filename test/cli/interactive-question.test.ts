import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

const LONG = "const greeting = 'a line long enough to pass fifty columns on its own';";

function edit(id: string, oldText: string, newText: string) {
  return {
    toolCalls: [
      {
        id,
        name: "edit",
        arguments: JSON.stringify({ path: "app.js", old_str: oldText, new_str: newText }),
      },
    ],
  };
}

describe.skipIf(tmuxMissing())("turnloop (interactive): what a permission question shows", () => {
  interactiveTest(
    "at 50 columns an edit's diff is minimal and wrapped, not cut; a cancel at the question says the tool never ran",
    async ({ fixture }) => {
      await writeFile(join(fixture.repository, "app.js"), `first();\n${LONG}\nlast();\n`);
      fixture.server.enqueue(
        edit(
          "call_1",
          `first();\n${LONG}\nlast();`,
          `first();\n${LONG.replace("'a", "'the")}\nlast();`,
        ),
        { text: "not edited" },
      );
      const terminal = await fixture.openReady([], { columns: 50, rows: 30 });
      terminal.type("change it");
      const screen = await terminal.waitFor(/\[a\] yes, and always/);
      const rows = screen.split("\n").map((line) => line.trimEnd());
      const diff = rows.slice(rows.indexOf("      first();"), rows.indexOf("      last();") + 1);
      // The unchanged first and last lines are context, not removed and re-added; the changed
      // line wraps under its marker.
      expect(diff).toEqual([
        "      first();",
        "    - const greeting = 'a line long enough to pass",
        "      fifty columns on its own';",
        "    + const greeting = 'the line long enough to",
        "      pass fifty columns on its own';",
        "      last();",
      ]);
      for (const line of screen.split("\n")) {
        expect(line).not.toMatch(/…$/);
      }
      terminal.key("Escape");
      await terminal.waitFor(
        /edit app\.js\s+interrupted\s*\n\s+Not run: the prompt was cancelled before/,
      );
      expect(terminal.screen(200)).not.toMatch(/partly run/);
      expect(await readFile(join(fixture.repository, "app.js"), "utf8")).toBe(
        `first();\n${LONG}\nlast();\n`,
      );
      terminal.key("C-d");
      await terminal.exited();
      const events = await fixture.events(printedSessionId(terminal.screen(500)));
      const completed = events.find((event) => event.type === "tool.execution_complete");
      expect(completed?.data).toMatchObject({
        success: false,
        error: { message: "Not run: the prompt was cancelled before the tool call started." },
      });
    },
  );
});
