import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { TerminalRenderer } from "../../src/cli/terminal-renderer.js";
import { parseEventLog } from "../../src/session/event-log.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { createFixture, type InteractiveFixture } from "./interactive-support.js";

// A command that exits non-zero is failed, with its exit code, on every terminal face (issue 21),
// over the recorded session of test/golden/failed-command-events.jsonl: `call_fail` exits 1
// (`exitCode` recorded), `call_old` exits 2 in a log written before that field, `call_ok` exits 0.

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const SESSION_ID = "f01d5e55-0000-4000-8000-000000000021";

let fixture: InteractiveFixture;

beforeEach(async () => {
  fixture = await createFixture();
  const log = (await readFile(GOLDEN, "utf8")).replace(
    '"<cwd>"',
    JSON.stringify(fixture.repository),
  );
  await mkdir(join(fixture.home, "session-state", SESSION_ID), { recursive: true });
  await writeFile(join(fixture.home, "session-state", SESSION_ID, "events.jsonl"), log);
});

afterEach(async () => {
  await fixture.close();
});

const cli = (args: string[]) =>
  runCli(args, {
    cwd: fixture.repository,
    env: cleanEnvironment({ TURNLOOP_HOME: fixture.home }),
  });

describe("a command exiting non-zero, on the terminal faces", () => {
  test("-p: the tool lines of the recorded session, failed with the exit code and last lines, durations without the permission wait", async () => {
    const { events } = parseEventLog(await readFile(GOLDEN));
    let stderr = "";
    const renderer = new TerminalRenderer(
      { write: () => true },
      { write: (text) => (stderr += text) },
      false,
    );
    for (const event of events) {
      renderer.handle(event);
    }
    // The reply before the calls is narration: progress on stderr, with the tool lines.
    expect(stderr.split("\n")).toEqual([
      "Running them.",
      "✗ bash echo one; echo two; exit 1 failed (exit code 1) (260 ms)",
      "    one",
      "    two",
      "✗ bash false || exit 2 failed (exit code 2) (100 ms)",
      "✓ bash echo fine (50 ms)",
      "",
    ]);
  });

  test("sessions show: ✗ failed (exit code N) with the last lines, without the model's exit line", async () => {
    const shown = await cli(["sessions", "show", SESSION_ID]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(
      [
        `session ${SESSION_ID} · openai-compatible:fake-model · ${fixture.repository} · started 2026-11-30T09:00:00.000Z`,
        "",
        "> Run the tests",
        "Running them.",
        '→ bash(command: "echo one; echo two; exit 1") ✗ failed (exit code 1) (260 ms)',
        "    one",
        "    two",
        '→ bash(command: "false || exit 2") ✗ failed (exit code 2) (100 ms)',
        '→ bash(command: "echo fine") ✓ (50 ms)',
        "    fine",
        "The tests failed.",
        "[stop: end_turn]",
        "",
      ].join("\n"),
    );
  });

  test("sessions export --format json and markdown: failed, with the exit code", async () => {
    const json = await cli(["sessions", "export", SESSION_ID, "--format", "json"]);
    expect(json.code).toBe(0);
    const view = JSON.parse(json.stdout) as {
      turns: Array<{ tools: Array<Record<string, unknown>> }>;
      summary: { toolCalls: unknown };
    };
    const tools = view.turns.flatMap((turn) => turn.tools);
    expect(
      tools.map(({ toolCallId, status, exitCode, start, end, durationMs }) => ({
        toolCallId,
        status,
        exitCode,
        start,
        end,
        durationMs,
      })),
    ).toEqual([
      {
        toolCallId: "call_fail",
        status: "failed",
        exitCode: 1,
        start: 2010,
        end: 7270,
        durationMs: 260,
      },
      {
        toolCallId: "call_old",
        status: "failed",
        exitCode: 2,
        start: 7300,
        end: 7400,
        durationMs: 100,
      },
      {
        toolCallId: "call_ok",
        status: "success",
        exitCode: 0,
        start: 7500,
        end: 7550,
        durationMs: 50,
      },
    ]);
    expect(view.summary.toolCalls).toEqual({ bash: { failed: 2, success: 1 } });
    const markdown = await cli(["sessions", "export", SESSION_ID, "--format", "markdown"]);
    expect(markdown.stdout.match(/^#### `\w+` · .*$/gm)).toEqual([
      // 5 s of the call's 5.26 s went by waiting for the user's permission answer.
      "#### `bash` · failed (exit code 1) · 260 ms",
      "#### `bash` · failed (exit code 2) · 100 ms",
      "#### `bash` · success · 50 ms",
    ]);
  });

  test.skipIf(tmuxMissing())(
    "interactive: the resumed session and a live command that exits 1 show ✗ failed (exit code N)",
    async () => {
      fixture.server.enqueue(
        {
          toolCalls: [
            { id: "call_live", name: "bash", arguments: '{"command":"echo live; exit 1"}' },
          ],
        },
        { text: "It failed too." },
      );
      const terminal = await fixture.openReady(["--resume", SESSION_ID, "--allow-all-tools"], {
        rows: 50,
      });
      // The resumed session's history is drawn once the session is open.
      let screen = await terminal.waitFor(/The tests failed\./);
      expect(screen).toMatch(
        /✗ bash echo one; echo two; exit 1 +failed \(exit code 1\)\n +one\n +two\n/,
      );
      expect(screen).toMatch(/✗ bash false \|\| exit 2 +failed \(exit code 2\)\n/);
      expect(screen).toMatch(/✓ bash echo fine +50 ms\n +fine\n/);
      terminal.type("once more");
      screen = await terminal.waitFor(/It failed too\./);
      expect(screen).toMatch(/✗ bash echo live; exit 1 +failed \(exit code 1\)\n +live\n/);
    },
  );
});
