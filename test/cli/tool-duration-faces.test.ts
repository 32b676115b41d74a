import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { TerminalRenderer } from "../../src/cli/terminal-renderer.js";
import { parseEventLog } from "../../src/session/event-log.js";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { createFixture, type InteractiveFixture } from "./interactive-support.js";
import { viewFile } from "./session-view-page.js";

// Session 41 left a tool call's time read four ways: `-p` and the plain lines `(1234 ms)`, the
// screen `1.2s`, the Markdown export and the session view's page `1.23 s`, `sessions show` (and
// the plain face's history, its lines) not at all. Every face now says
// it in events/durations.ts `durationWords`: `1.2 s`. The log is
// test/golden/failed-command-events.jsonl with `call_ok` (echo fine) taking 1234 ms: every event
// from its completion on moved 1184 ms later.

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const SESSION_ID = "f01d5e55-0000-4000-8000-000000000021";
const LATER_MS = 1184;

/** The golden log, `call_ok` taking 1234 ms, in folder `cwd`. */
async function slowLog(cwd: string): Promise<string> {
  const lines = (await readFile(GOLDEN, "utf8")).trimEnd().split("\n");
  const from = lines.findIndex(
    (line) => line.includes('"tool.execution_complete"') && line.includes('"call_ok"'),
  );
  return `${lines
    .map((line, index) => {
      const event = JSON.parse(line) as { timestamp: string; data: { cwd?: string } };
      if (index >= from) {
        event.timestamp = new Date(Date.parse(event.timestamp) + LATER_MS).toISOString();
      }
      if (event.data.cwd !== undefined) {
        event.data.cwd = cwd;
      }
      return JSON.stringify(event);
    })
    .join("\n")}\n`;
}

let fixture: InteractiveFixture;
beforeEach(async () => {
  fixture = await createFixture();
  await mkdir(join(fixture.home, "session-state", SESSION_ID), { recursive: true });
  await writeFile(
    join(fixture.home, "session-state", SESSION_ID, "events.jsonl"),
    await slowLog(fixture.repository),
  );
});
afterEach(() => fixture.close());

const cli = (args: string[]) =>
  runCli(args, { cwd: fixture.repository, env: cleanEnvironment({ TURNLOOP_HOME: fixture.home }) });

test("-p's tool lines, sessions show, the Markdown export and the JSON export: the 1234 ms call reads 1.2 s", async () => {
  const events = parseEventLog(
    await readFile(join(fixture.home, "session-state", SESSION_ID, "events.jsonl")),
  ).events;
  let stderr = "";
  const renderer = new TerminalRenderer(
    { write: () => true },
    { write: (text) => (stderr += text) },
    false,
  );
  for (const event of events) {
    renderer.handle(event);
  }
  expect(stderr.split("\n").filter((line) => /^[✓✗]/.test(line))).toEqual([
    "✗ bash echo one; echo two; exit 1 failed (exit code 1) (260 ms)",
    "✗ bash false || exit 2 failed (exit code 2) (100 ms)",
    "✓ bash echo fine (1.2 s)",
  ]);
  const show = await cli(["sessions", "show", SESSION_ID]);
  expect(show.stdout.split("\n").filter((line) => line.startsWith("→ "))).toEqual([
    '→ bash(command: "echo one; echo two; exit 1") ✗ failed (exit code 1) (260 ms)',
    '→ bash(command: "false || exit 2") ✗ failed (exit code 2) (100 ms)',
    '→ bash(command: "echo fine") ✓ (1.2 s)',
  ]);
  const markdown = await cli(["sessions", "export", SESSION_ID, "--format", "markdown"]);
  expect(
    [...markdown.stdout.matchAll(/^#### `bash` · .* · (\S+ \S+)$/gm)].map(([, took]) => took),
  ).toEqual(["260 ms", "100 ms", "1.2 s"]);
  const json = await cli(["sessions", "export", SESSION_ID, "--format", "json"]);
  const view = JSON.parse(json.stdout) as {
    turns: Array<{ tools: Array<{ durationMs?: number }> }>;
  };
  expect(view.turns.flatMap((turn) => turn.tools.map((tool) => tool.durationMs))).toEqual([
    260, 100, 1234,
  ]);
});

describe.skipIf(tmuxMissing())("the resumed session on a terminal", () => {
  test("the screen: the finished call's time reads 1.2 s", async () => {
    const terminal = await fixture.openReady(["--resume", SESSION_ID], { rows: 50 });
    const screen = await terminal.waitFor(/The tests failed\./);
    expect(screen).toMatch(/✓ bash echo fine {2,}1\.2 s\n +fine\n/);
  });

  test("the plain-line face (TERM=dumb): the history's call line (as sessions show) reads (1.2 s)", async () => {
    const terminal = fixture.open(["--resume", SESSION_ID], { env: { TERM: "dumb" }, rows: 50 });
    const screen = await terminal.waitFor(/The tests failed\./);
    expect(screen).toMatch(/^→ bash\(command: "echo fine"\) ✓ \(1\.2 s\)$/m);
  });
});

describe.skipIf(!requireBrowser())("the session view's page, in headless Chromium", () => {
  let browser: HeadlessBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(() => browser?.close());

  test("the call's details read 1.2 s", async () => {
    const file = await viewFile(fixture.home, SESSION_ID, "view.html");
    const { page } = await browser.open(pathToFileURL(file).href);
    await page.click('.tool-bar[data-tool-call-id="call_ok"]');
    expect(await page.textContent("#tool-call_ok h3")).toBe("bash · success · 1.2 s");
  });
});
