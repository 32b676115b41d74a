import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

test.override({ git: true });

// Trial of round 3, session 23 (items 4-6): stream-json left stderr silent about a refused call,
// json and stream-json left it empty after a signal and their result named no signal, and the
// --max-turns stop said only `stopped: max_turn_requests`. Every output format now puts the same
// lines on stderr (README, "JSON output").

const QUIET_FORMATS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["--quiet", ["--quiet"]],
  ["json", ["--output-format", "json"]],
  ["stream-json", ["--output-format", "stream-json"]],
];

describe("stderr is the same whatever --output-format says", () => {
  test.for(QUIET_FORMATS)("%s: a refused call's line", async ([, format], { cli, model }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"rm -rf x"}' }] },
      { text: "Not allowed." },
    );
    const result = await cli(["-p", "delete x", "--deny-tool", "bash", ...format]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^✗ bash rm -rf x .*Permission denied/);
    expect(result.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1);
  });

  test.for(QUIET_FORMATS)(
    "%s: a SIGTERM names the signal and the session to resume",
    async ([, format], { cli, model, repository }) => {
      const command =
        "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";
      model.enqueue({
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
      });
      const result = await cli(["-p", "wait", "--allow-all-tools", ...format], {
        onStart: (child) =>
          whenFileExists(join(repository, "command.pid"), child, () => child.kill("SIGTERM")),
      });
      expect(result.code).toBe(143);
      const id = /--resume ([0-9a-f-]{36})/.exec(result.stderr)?.[1] ?? "";
      expect(result.stderr).toBe(`turnloop: cancelled by SIGTERM; resume with --resume ${id}\n`);
      if (format[0] === "--output-format") {
        const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as object;
        expect(last).toMatchObject({
          stop_reason: "cancelled",
          session_id: id,
          cancel_reason: "cancelled by SIGTERM",
        });
      }
    },
  );

  test.for([["text", []], ...QUIET_FORMATS] as const)(
    "%s: the --max-turns stop names the limit and how to go on",
    async ([, format], { cli, model }) => {
      model.enqueue({
        toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }],
      });
      const result = await cli(["-p", "go", "--allow-all-tools", "--max-turns", "1", ...format]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "turnloop: stopped: reached the turn limit (1); continue with --continue or raise --max-turns\n",
      );
    },
  );
});
