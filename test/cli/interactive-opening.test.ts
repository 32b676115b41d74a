import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import {
  createFixture,
  type InteractiveFixture,
  interactiveTest,
  pastSession,
  printedSessionId,
} from "./interactive-support.js";

/** The picker's rows: each session's short id, age and first prompt, the highlighted one marked →. */
function pickerRows(screen: string): string[] {
  return screen
    .split("\n")
    .filter((line) => /^\s*(→\s*)?[0-9a-f]{8} {2}/.test(line))
    .map((line) => line.trim());
}

describe.skipIf(tmuxMissing())("turnloop (interactive): how the screen opens", () => {
  interactiveTest(
    "a banner names the folder, the model, the session id and /help",
    async ({ fixture }) => {
      const terminal = await fixture.openReady([], { columns: 120 });
      const opened = await terminal.waitFor(/\/help lists the commands/);
      terminal.key("C-d");
      await terminal.exited();
      const sessionId = printedSessionId(await terminal.screen(200));
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
      const screen = await terminal.screen(200);
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
      expect((await terminal.screen(200)).split("\n").slice(0, 2)).toEqual([
        `turnloop: ${config}: maxTurns: must be a number, not the string "many"`,
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
        `→ ${plums.slice(0, 8)}  just now  third question about plums`,
        `${pears.slice(0, 8)}  just now  second question about pears`,
        `${apples.slice(0, 8)}  just now  first question about apples`,
      ];
      // The filter line, then its rows: one redraw, which a capture can catch half written.
      await terminal.waitFor(/Resume a session of this folder \(type to filter/);
      await terminal.waitForScreen(all, pickerRows);
      terminal.write("P");
      await terminal.waitFor(/filter: P\s*\n/);
      await terminal.waitForScreen(all, pickerRows);
      terminal.write("ear");
      await terminal.waitFor(/filter: Pear\s*\n/);
      await terminal.waitForScreen(
        [`→ ${pears.slice(0, 8)}  just now  second question about pears`],
        pickerRows,
      );
      terminal.key("BSpace", "BSpace", "BSpace", "BSpace");
      terminal.write("question apples");
      await terminal.waitFor(/filter: question apples\s*\n/);
      await terminal.waitForScreen(
        [`→ ${apples.slice(0, 8)}  just now  first question about apples`],
        pickerRows,
      );
      terminal.key("Enter");
      await terminal.waitFor(/Apples are red\./);
      terminal.key("C-d");
      await terminal.exited();
      expect(printedSessionId(await terminal.screen(500))).toBe(apples);
    },
    60_000,
  );
});

/**
 * Moves every time in `sessionId`'s log `days` back (ahead when negative; same length) and drops
 * the listing's cache of it (metadata.json, rebuilt from the log), so the listing ages it.
 */
async function ageSession(fixture: InteractiveFixture, sessionId: string, days: number) {
  const folder = join(fixture.home, "session-state", sessionId);
  await rm(join(folder, "metadata.json"), { force: true });
  const path = join(folder, "events.jsonl");
  const text = await readFile(path, "utf8");
  // `session.start`'s `startTime` too: a session's last activity is never before its start.
  const aged = text.replace(/"(timestamp|startTime)":"([^"]+)"/g, (_whole, key, time: string) => {
    const moved = new Date(Date.parse(time) - days * 24 * 3_600_000).toISOString();
    return `"${key}":"${moved}"`;
  });
  await writeFile(path, aged);
}

// A fresh user's trial: the picker showed ages only once a filter was typed. An age was a
// description right of a label column up to 72 wide, dropped whenever a long first prompt left
// it under 10 columns (at 80 columns, any prompt over ~60 characters) and always under 41
// columns. The age is now a column before the prompt: shown at every width, the row cut at the
// edge.
describe.skipIf(tmuxMissing())("turnloop (interactive): the resume picker's ages", () => {
  const long =
    "please read every file under src and explain how the session log is folded into the model";
  const rule = (columns: number) => "─".repeat(columns);
  const screens: Record<number, string[]> = {
    40: [
      "Resume a session of this folder (type to",
      "filter, ↑/↓, Enter opens, Esc cancels)",
      "→ RECENT__  just now    please read ev",
      "  OLD_____  3 days ago  fix the build",
      rule(40),
      "",
      rule(40),
      "type to fi...  fake-model · ask · ctx 0%",
    ],
    80: [
      "Resume a session of this folder (type to filter, ↑/↓, Enter opens, Esc cancels)",
      "→ RECENT__  just now    please read every file under src and explain how the s",
      "  OLD_____  3 days ago  fix the build",
      rule(80),
      "",
      rule(80),
      "type to filter · ↑/↓ choose · Enter o...  fake-model · ask · ctx 0% · 0 in 0 out",
    ],
    // The first prompt as listings keep it: cut at 80 characters.
    120: [
      "Resume a session of this folder (type to filter, ↑/↓, Enter opens, Esc cancels)",
      "→ RECENT__  just now    please read every file under src and explain how the session log is folded into…",
      "  OLD_____  3 days ago  fix the build",
      rule(120),
      "",
      rule(120),
      "type to filter · ↑/↓ choose · Enter opens · Esc cancels                           fake-model · ask · ctx 0% · 0 in 0 out",
    ],
  };
  // One folder's two sessions for every width (the picker only reads them): one 3 days old, one
  // moved 10 minutes ahead, so that it is `just now` (a time to come counts as now: age.ts) for
  // as long as the widths take.
  let fixture: InteractiveFixture;
  let old: string;
  let recent: string;
  beforeAll(async () => {
    fixture = await createFixture();
    old = await pastSession(fixture, "fix the build", "Fixed.");
    await ageSession(fixture, old, 3);
    recent = await pastSession(fixture, long, "Read.");
    await ageSession(fixture, recent, -10 / (24 * 60));
  }, 60_000);
  afterAll(() => fixture?.close());

  for (const [columns, expected] of Object.entries(screens)) {
    test(`every row shows its age at ${columns} columns, whatever the prompts' length`, async () => {
      const terminal = fixture.open(["--resume"], { columns: Number(columns) });
      onTestFinished(() => terminal.close());
      const named = (screen: string) =>
        screen
          .replaceAll(recent.slice(0, 8), "RECENT__")
          .replaceAll(old.slice(0, 8), "OLD_____")
          .split("\n")
          .map((line) => line.trimEnd());
      // The whole screen, not a pattern (interactive-terminal.ts `waitForScreen`).
      await terminal.waitForScreen(expected, named);
    }, 60_000);
  }
});
