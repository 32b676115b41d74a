import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 39 (F8): `--verbose` with `--output-format json|stream-json` was
// silently ignored. It now gives stderr the text mode's lines, stdout staying the JSON's alone
// (README, "JSON output"); Claude Code's scripts pass it with stream-json.

test.override({ git: true });

describe("--verbose with --output-format json and stream-json", () => {
  test.for(["json", "stream-json"])(
    "%s: stderr has the tool line of a failed command with its whole output and the summary; stdout only JSON",
    async (format, { cli, model }) => {
      const command = "for i in 1 2 3 4 5 6 7; do echo line$i; done; exit 2";
      model.enqueue(
        {
          text: "Listing.",
          toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
        },
        { text: "It failed." },
      );
      const result = await cli(["-p", "go", "--yolo", "--output-format", format, "--verbose"]);
      const stdoutLines = result.stdout.trim().split("\n");
      const last = JSON.parse(stdoutLines.at(-1) ?? "{}") as { session_id?: string };
      const stderr = result.stderr
        .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
        .replace(/· [\d.]+ s · /, "· N s · ");
      expect({ code: result.code, stderr }).toEqual({
        code: 0,
        stderr:
          "Listing.\n" +
          `✗ bash ${command} failed (exit code 2) (N ms)\n` +
          [1, 2, 3, 4, 5, 6, 7].map((line) => `    line${line}\n`).join("") +
          `2 turns · 20 in / 10 out tokens · N s · session ${last.session_id}\n`,
      });
      // Every stdout line is JSON: none of the text mode's answer reached it.
      expect(stdoutLines.every((line) => line.startsWith("{"))).toBe(true);
      expect(last).toMatchObject({ type: "result", result: "It failed." });
    },
  );
});
