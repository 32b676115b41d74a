/**
 * One recorded session with a tool call in each state — completed, failed (exit code ≠ 0), timed
 * out, denied, invalid arguments, unknown tool, interrupted (a cancel) — read back by every
 * reader: `-p`'s lines as it ran, `sessions show`, the export (Markdown and JSON), ACP
 * `session/load` (`rawOutput.outcome`; its `status` stays ACP's) and the reopened terminal. Each
 * says each call's state in the same words, the session model's (session-model/tool-call.ts
 * `stateWords`). Lane status, round 3 session 36: a timed-out command was "timed out" in `-p`
 * and the terminal but "failed" elsewhere, `invalid_arguments` and `unknown_tool` were said (as
 * codes) only by `sessions show`, and `-p` never said `denied`.
 */

import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { AcpHarness } from "../acp/support.js";
import { runCli, whenFileExists } from "../support/cli.js";
import { fakeModelEnvironment } from "../support/fixtures.js";
import { InteractiveTerminal, screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { withoutToolTimes } from "../support/tool-times.js";

const call = (id: string, name: string, args: object) => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

/** Each call and the words every reader says of it, in the order the calls were made. */
const CALLS = [
  { id: "call_ok", line: "bash echo ok", words: undefined },
  { id: "call_exit", line: "bash exit 3", words: "failed (exit code 3)" },
  { id: "call_timeout", line: "bash sleep 5", words: "timed out after 1 s" },
  { id: "call_denied", line: "bash rm notes.md", words: "denied" },
  { id: "call_invalid", line: "view", words: "invalid arguments" },
  { id: "call_unknown", line: "no_such_tool", words: "unknown tool" },
  { id: "call_cancelled", line: "bash touch started; sleep 30", words: "interrupted" },
];

async function recordSession(harness: AcpHarness): Promise<{ sessionId: string; printed: string }> {
  const env = fakeModelEnvironment(harness.home, harness.server, { TURNLOOP_MAX_RETRIES: "0" });
  harness.server.enqueue(
    {
      text: "Trying each.",
      toolCalls: [
        call("call_ok", "bash", { command: "echo ok" }),
        call("call_exit", "bash", { command: "exit 3" }),
        call("call_timeout", "bash", { command: "sleep 5", timeout: 1 }),
        call("call_denied", "bash", { command: "rm notes.md" }),
        call("call_invalid", "view", {}),
        call("call_unknown", "no_such_tool", {}),
      ],
    },
    { text: "Done." },
  );
  const flags = ["--allow-all-tools", "--deny-tool", "bash(rm *)"];
  const first = await runCli(["-p", "try each", ...flags], { cwd: harness.cwd, env });
  expect(first.code, first.stderr).toBe(0);
  const sessionId = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
  harness.server.enqueue({
    text: "Waiting.",
    toolCalls: [call("call_cancelled", "bash", { command: "touch started; sleep 30" })],
  });
  const cancelled = await runCli(["-p", "-r", sessionId, "wait", ...flags], {
    cwd: harness.cwd,
    env,
    onStart: (child) =>
      whenFileExists(join(harness.cwd, "started"), child, () => child.kill("SIGINT")),
  });
  expect(cancelled.code, cancelled.stderr).toBe(130);
  return { sessionId, printed: `${first.stderr}${cancelled.stderr}` };
}

/** What each reader says of the calls, in order: `undefined` for the completed one. */
const WORDS = CALLS.map((each) => each.words);

/** The words after a line's mark: `✗ failed (exit code 3)` → `failed (exit code 3)`. */
const afterMark = (line: string, mark: RegExp) =>
  mark.exec(line)?.[2] ?? (mark.exec(line)?.[1] === "✓" ? undefined : `? ${line}`);

/** The reopened terminal's rows of the calls: their marks and the words after the call. */
async function terminalWords(sessionId: string, cwd: string, env: NodeJS.ProcessEnv) {
  const terminal = new InteractiveTerminal(["--resume", sessionId], {
    cwd,
    env,
    columns: 100,
    rows: 80,
  });
  try {
    await terminal.waitFor(/Waiting\.[\s\S]*cancelled/);
    const rows = screenLines(await terminal.screen()).filter((row) => /^[✓✗⊘] /.test(row));
    terminal.key("C-d");
    expect((await terminal.exited()).code).toBe(0);
    return rows.map((row) => (row.startsWith("✓") ? undefined : row.split("  ").at(-1)));
  } finally {
    terminal.close();
  }
}

describe("every reader says each tool call's state in the same words", () => {
  test("-p, sessions show, the export, ACP session/load, the reopened terminal", async () => {
    const harness = await AcpHarness.start();
    const { sessionId, printed } = await recordSession(harness);
    const env = fakeModelEnvironment(harness.home, harness.server);
    const read = async (args: string[]) => {
      const result = await runCli(args, { cwd: harness.cwd, env });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    // -p: `✗ bash exit 3 failed (exit code 3) (222 ms)`, a reason after `: `.
    const lines = printed
      .split("\n")
      .filter((line) => /^[✓✗⊘] /.test(line))
      .map((line) => line.replace(/ \([\d.]+ (?:ms|s|min)\)/, "").split(": ")[0]);
    expect(lines).toEqual(
      CALLS.map(
        ({ line, words }) =>
          `${words === undefined ? "✓" : words === "interrupted" ? "⊘" : "✗"} ${line}${words === undefined ? "" : ` ${words}`}`,
      ),
    );
    const show = withoutToolTimes(await read(["sessions", "show", sessionId])).split("\n");
    const showMark = /\) (✓|[✗⊘]) ?(.*)$/;
    expect(
      show
        .filter((line) => line.startsWith("→ "))
        .map((line) => afterMark(line, showMark) || undefined),
    ).toEqual(WORDS);
    const markdown = await read(["sessions", "export", sessionId, "--format", "markdown"]);
    const headings = markdown.split("\n").filter((line) => line.startsWith("#### "));
    expect(headings.map((line) => line.split(" · ")[1])).toEqual(
      WORDS.map((words) => words ?? "success"),
    );
    const json = JSON.parse(await read(["sessions", "export", sessionId, "--format", "json"]));
    const tools = json.turns.flatMap((turn: { tools: Array<{ outcome?: string }> }) => turn.tools);
    expect(tools.map((tool: { outcome?: string }) => tool.outcome)).toEqual(WORDS);
    if (!tmuxMissing()) {
      expect(await terminalWords(sessionId, harness.cwd, env)).toEqual(WORDS);
    }

    await harness.loadSession(sessionId);
    const ended = harness
      .updatesBefore("session/load")
      .flatMap((update) => (update.sessionUpdate === "tool_call_update" ? [update] : []));
    // ACP's own status stays ACP's: `completed` or `failed`.
    expect(
      ended.map((update) => [
        update.status,
        (update.rawOutput as { outcome?: string } | undefined)?.outcome,
      ]),
    ).toEqual(WORDS.map((words) => [words === undefined ? "completed" : "failed", words]));
  }, 90_000);
});
