import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { test } from "../support/fixtures.js";
import { inPseudoTerminal } from "../support/pseudo-terminal.js";

// `turnloop -p`'s permission question on a terminal (a pseudo-terminal from `script`, as in
// project-trust.test.ts): Esc answers no, as at the trust questions, instead of echoing `^[`.

describe("turnloop -p's permission question on a terminal", () => {
  test("Esc answers no: the command does not run, the model is told the user said no, no ^[ shows", async ({
    environment,
    model,
    repository,
  }) => {
    model.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "touch made" }) },
        ],
      },
      { text: "Understood." },
    );
    // A pseudo-terminal for stdin, stdout and stderr, 200 columns wide.
    const { child, shown, seen, exited } = inPseudoTerminal(
      `stty cols 200; exec '${process.execPath}' '${CLI_PATH}' -p 'make a file'`,
      { cwd: repository, env: environment() },
    );
    try {
      await seen("[t] no, and tell the model why");
      await seen("> ");
      child.stdin.write("\x1b");
      await seen("Understood.");
      expect(await exited).toBe(0);
      expect(shown()).not.toContain("^[");
      expect(existsSync(join(repository, "made"))).toBe(false);
      const body = model.requests.at(-1)?.body as {
        messages: Array<{ role: string; content: unknown }>;
      };
      expect(body.messages.filter((message) => message.role === "tool")).toEqual([
        expect.objectContaining({
          content: "Permission denied for 'bash': the user said no",
        }),
      ]);
    } finally {
      // A question still waiting would wait for its answer.
      child.kill();
    }
  });
});
