import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { requireSandbox } from "../support/sandbox.js";
import { withoutToolTimes } from "../support/tool-times.js";
import { exitWithCtrlD, interactiveTest } from "./interactive-support.js";

// Trial of round 3 session 36 (P1-4): the question to run, outside the sandbox, a command the
// sandbox stopped offered `[a] yes, always for bash(curl …) in this session`, but the answer was
// logged `scope: "once"` and the same call asked again: a yes there counts for that call alone.
// Now no face offers "always" there (ACP drops its `_always` options, the SDK sends
// `canOfferSessionApproval: false`): the terminal shows yes once, no, and no with a reason.

const sandboxWorks = await requireSandbox();

/** The rows of the choices: from `[y]` to `[t]`, padding trimmed. */
function choiceRows(screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => row.startsWith("[y]"));
  const end = rows.findIndex((row) => row.includes("[t] no, and tell the model why"));
  return rows.slice(start, end + 1);
}

describe.runIf(sandboxWorks && !tmuxMissing())(
  "turnloop (interactive): the question to run a stopped command outside the sandbox",
  () => {
    interactiveTest(
      "offers yes once and no, not always; y runs it once and the log says once",
      async ({ fixture }) => {
        // The host's fake model listens on 127.0.0.1; the sandbox has no network to reach it.
        const command = `curl -sS -o /dev/null ${fixture.server.url}/`;
        fixture.server.enqueue(
          { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
          { text: "reached it" },
        );
        const terminal = await fixture.openReady(
          ["--sandbox", "workspace-write", "--permission-mode", "auto"],
          { columns: 100, rows: 40 },
        );
        terminal.type("reach the server");
        const screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
        expect(screen).toMatch(/turnloop wants to run outside the sandbox: curl/);
        expect(choiceRows(screen)).toEqual([
          "[y] yes, once   [n] no   [t] no, and tell the model why",
        ]);
        terminal.type("y");
        await terminal.waitFor(/reached it/);
        // Trial 40 F8: that it ran outside the sandbox is on the call's line, after its time, not
        // only in the result's first line, which the screen cuts at its edge.
        const line = (await terminal.idle()).split("\n").find((row) => row.startsWith("✓ bash"));
        expect(line?.trimEnd()).toMatch(
          /^✓ bash curl -sS -o \/dev\/null http:\/\/127\.0\.0\.1:\d+\/ +[\d.]+ (?:ms|s|min) · ran outside the sandbox \(your yes\)$/,
        );
        const sessionId = await exitWithCtrlD(terminal);
        const answers = (await fixture.events(sessionId))
          .filter((event) => event.type.startsWith("permission."))
          .map((event) => {
            const { requestId: _requestId, ...data } = event.data as Record<string, unknown>;
            return { type: event.type, data };
          });
        expect(answers).toEqual([
          {
            type: "permission.requested",
            data: {
              toolCallId: "call_1",
              toolName: "bash",
              kind: "execute",
              title: `Run outside the sandbox: ${command}`,
              outsideSandbox: expect.stringContaining("the sandbox has no network"),
            },
          },
          {
            type: "permission.completed",
            data: { toolCallId: "call_1", decision: "allowed", scope: "once" },
          },
        ]);
      },
    );
  },
);

describe.runIf(sandboxWorks)(
  "turnloop (plain lines): a stopped command run outside the sandbox",
  () => {
    test("its ✓ line says it ran outside the sandbox, with the user's yes", async ({
      cli,
      model,
    }) => {
      const command = `curl -sS -o /dev/null ${model.url}/`;
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "reached it" },
      );
      const result = await cli(["--sandbox", "workspace-write", "--permission-mode", "auto"], {
        stdin: "reach the server\ny\n",
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.split("\n").filter((line) => line.includes("✓ bash"));
      expect(lines, result.stdout).toEqual([
        expect.stringMatching(
          new RegExp(
            `✓ bash ${command.replace(/[./]/g, "\\$&")} ran outside the sandbox \\(your yes\\) \\([\\d.]+ (?:ms|s|min)\\)$`,
          ),
        ),
      ]);
      // Session 41: `sessions show` reads the same call from the log with the same words.
      const shown = await cli(["sessions", "show", printedSessionId(result.stdout)]);
      const calls = withoutToolTimes(shown.stdout)
        .split("\n")
        .filter((line) => line.startsWith("→ bash("));
      expect(calls, shown.stdout).toEqual([
        expect.stringMatching(/^→ bash\(command: .*\) ✓ · ran outside the sandbox \(your yes\)$/),
      ]);
    });
  },
);
