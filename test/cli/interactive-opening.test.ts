import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, pastSession, printedSessionId } from "./interactive-support.js";

/** The picker's rows: each session's short id and first prompt, the highlighted one marked →. */
function pickerRows(screen: string): string[] {
  return screen
    .split("\n")
    .filter((line) => /^\s*(→\s*)?[0-9a-f]{8} {2}/.test(line))
    .map((line) => line.replace(/\s+just now\s*$/, "").trim());
}

describe.skipIf(tmuxMissing())("turnloop (interactive): how the screen opens", () => {
  interactiveTest(
    "a banner names the folder, the model, the session id and /help",
    async ({ fixture }) => {
      const terminal = await fixture.openReady([], { columns: 120 });
      const opened = await terminal.waitFor(/\/help lists the commands/);
      terminal.key("C-d");
      await terminal.exited();
      const sessionId = printedSessionId(terminal.screen(200));
      const banner = opened
        .split("\n")
        .slice(0, 2)
        .map((line) => line.trimEnd());
      expect(banner).toEqual([
        `turnloop in ${fixture.repository}`,
        `model openai-compatible:fake-model · session ${sessionId} · /help lists the commands`,
      ]);
    },
  );

  interactiveTest(
    "a missing API key is reported before anything is drawn: the message, exit 64, no screen",
    async ({ fixture }) => {
      const terminal = fixture.open([], {
        env: { TURNLOOP_MODEL: "anthropic:claude-sonnet-4-5", TURNLOOP_BASE_URL: undefined },
      });
      const { code } = await terminal.exited();
      const screen = terminal.screen(200);
      expect(code).toBe(64);
      expect(screen.split("\n").slice(0, 2)).toEqual([
        "turnloop: anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY (or TURNLOOP_API_KEY).",
        "[exit 64]",
      ]);
    },
  );

  interactiveTest(
    "a bad config file is reported before anything is drawn (the screen's module loads meanwhile): the file and field, exit 64, no screen",
    async ({ fixture }) => {
      const config = join(fixture.repository, ".turnloop", "config.json");
      await mkdir(join(fixture.repository, ".turnloop"));
      await writeFile(config, JSON.stringify({ maxTurns: "many" }));
      const terminal = fixture.open([]);
      const { code } = await terminal.exited();
      expect(code).toBe(64);
      expect(terminal.screen(200).split("\n").slice(0, 2)).toEqual([
        `turnloop: ${config}: maxTurns: Invalid input: expected number, received string`,
        "[exit 64]",
      ]);
    },
  );

  interactiveTest(
    "the resume picker filters as you type; Backspace widens it; Enter opens the one shown",
    async ({ fixture }) => {
      const apples = await pastSession(fixture, "first question about apples", "Apples are red.");
      const pears = await pastSession(fixture, "second question about pears", "Pears are green.");
      const plums = await pastSession(fixture, "third question about plums", "Plums are purple.");
      const terminal = fixture.open(["--resume"], { columns: 120 });
      // Newest first; "P" (any case) is in all three.
      const all = [
        `→ ${plums.slice(0, 8)}  third question about plums`,
        `${pears.slice(0, 8)}  second question about pears`,
        `${apples.slice(0, 8)}  first question about apples`,
      ];
      let screen = await terminal.waitFor(/Resume a session of this folder \(type to filter/);
      expect(pickerRows(screen)).toEqual(all);
      terminal.write("P");
      screen = await terminal.waitFor(/filter: P\s*\n/);
      expect(pickerRows(screen)).toEqual(all);
      terminal.write("ear");
      screen = await terminal.waitFor(/filter: Pear\s*\n/);
      expect(pickerRows(screen)).toEqual([`→ ${pears.slice(0, 8)}  second question about pears`]);
      terminal.key("BSpace", "BSpace", "BSpace", "BSpace");
      terminal.write("question apples");
      screen = await terminal.waitFor(/filter: question apples\s*\n/);
      expect(pickerRows(screen)).toEqual([`→ ${apples.slice(0, 8)}  first question about apples`]);
      terminal.key("Enter");
      await terminal.waitFor(/Apples are red\./);
      terminal.key("C-d");
      await terminal.exited();
      expect(printedSessionId(terminal.screen(500))).toBe(apples);
    },
    60_000,
  );
});
