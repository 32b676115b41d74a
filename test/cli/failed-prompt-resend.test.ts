import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type CliFixtures, test } from "../support/fixtures.js";

// A prompt that fails for good (the model's server keeps answering 500 after the retries, or the
// stream breaks after text was shown) stays in the session's log without an answer. The trial of
// round 3, session 36 (P3-2): nothing said how to send it again. `-p` now says the command that
// goes on from it, and that command works: the model gets the kept prompt, then "continue".

const FAILURE = { status: 500, body: { error: { message: "the server is down" } } };

/** `turnloop -p <args>`, one retry at once (two requests for a prompt that keeps failing). */
function run(cli: CliFixtures["cli"], args: readonly string[]) {
  return cli(args, { env: { TURNLOOP_MAX_RETRIES: "1", TURNLOOP_RETRY_BASE_DELAY_MS: "0" } });
}

/** The words of the hint's command after `turnloop`, as a shell would split them. */
function commandOf(hint: string | undefined): string[] {
  const command = /to try again, turnloop (-p --resume [0-9a-f-]{36}) "continue"$/.exec(hint ?? "");
  return command?.[1] === undefined ? [] : [...command[1].split(" "), "continue"];
}

/** The `index`th request's messages but the system prompt: role and content. */
function conversationOf(model: FakeModelServer, index: number) {
  return chatMessages(model, index)
    .filter((message) => message.role !== "system")
    .map(({ role, content }) => ({ role, content }));
}

function sessionIdOf(text: string): string {
  return /--resume ([0-9a-f-]{36})/.exec(text)?.[1] ?? "no session id";
}

describe("-p after a prompt that failed for good", () => {
  test("text: the error, then how to try again, then the summary; the command it names goes on from the kept prompt", async ({
    cli,
    model,
  }) => {
    model.enqueue(FAILURE, FAILURE);
    const failed = await run(cli, ["-p", "fix the build"]);
    const sessionId = sessionIdOf(failed.stderr);
    expect({
      code: failed.code,
      stdout: failed.stdout,
      lines: failed.stderr
        .trimEnd()
        .split("\n")
        .map((line) =>
          line
            .replace(/(?<=retrying in )\d+(?:\.\d)? (?:ms|s|min)/, "N s")
            .replace(/\d+\.\d s/, "N s")
            .replaceAll(sessionId, "<id>"),
        ),
    }).toEqual({
      code: 1,
      stdout: "",
      lines: [
        "turnloop: warning: retrying in N s (attempt 1): HTTP 500: the server is down",
        "turnloop: HTTP 500: the server is down",
        'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
        "1 turn (1 failed) · 1 retry · tokens not reported · N s · session <id>",
      ],
    });

    model.enqueue({ text: "Fixed." });
    const hint = failed.stderr.split("\n").find((line) => line.includes("to try again"));
    const again = await run(cli, commandOf(hint));
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: "Fixed.\n" });
    expect(conversationOf(model, 2)).toEqual([
      { role: "user", content: "fix the build" },
      { role: "user", content: "continue" },
    ]);
  });

  test("--quiet and json: the same line under the error on stderr", async ({ cli, model }) => {
    for (const args of [["--quiet"], ["--output-format", "json"]]) {
      model.enqueue(FAILURE, FAILURE);
      const failed = await run(cli, ["-p", "fix the build", ...args]);
      const sessionId = sessionIdOf(failed.stderr);
      expect({
        code: failed.code,
        lines: failed.stderr
          .trimEnd()
          .split("\n")
          .filter((line) => !line.includes("retrying in"))
          .map((line) => line.replaceAll(sessionId, "<id>")),
      }).toEqual({
        code: 1,
        lines: [
          "turnloop: HTTP 500: the server is down",
          'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
        ],
      });
    }
  });

  test("a stream broken after its first words (not retried): the words on stderr, the error, the line", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: ["Looking", " at it"], breakAfterEvents: 2, breakBy: "reset" });
    const failed = await run(cli, ["-p", "fix the build"]);
    const sessionId = sessionIdOf(failed.stderr);
    const lines = failed.stderr
      .trimEnd()
      .split("\n")
      .map((line) =>
        line
          .replace(/(?<=retrying in )\d+(?:\.\d)? (?:ms|s|min)/, "N s")
          .replace(/\d+\.\d s/, "N s")
          .replaceAll(sessionId, "<id>"),
      );
    expect({ code: failed.code, stdout: failed.stdout, last: lines.slice(-2) }).toEqual({
      code: 1,
      stdout: "",
      last: [
        'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
        "1 turn (1 failed) · tokens not reported · N s · session <id>",
      ],
    });
    expect(model.requests).toHaveLength(1);
  });

  test("a prompt refused before it was stored (too large for the window) gets no such line", async ({
    cli,
    model,
  }) => {
    const refused = await run(cli, ["-p", "word ".repeat(20_000), "--context-window", "8000"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).not.toContain("to try again");
    expect(model.requests).toHaveLength(0);
  });
});

test("the interactive session on plain lines (no terminal): the line after the error, then the next prompt goes on", async ({
  cli,
  model,
}) => {
  model.enqueue(FAILURE, { text: "Fixed." });
  const result = await cli([], {
    stdin: "fix the build\ncontinue\n",
    env: { TURNLOOP_MAX_RETRIES: "0" },
  });
  expect(result.code).toBe(0);
  const lines = result.stdout.split("\n");
  const failedAt = lines.findIndex((line) => line.endsWith("HTTP 500: the server is down"));
  expect(lines.slice(failedAt + 1, failedAt + 2)).toEqual([
    'the message is kept: send "continue" to try again',
  ]);
  expect(lines.some((line) => line.endsWith("Fixed."))).toBe(true);
  expect(conversationOf(model, 1)).toEqual([
    { role: "user", content: "fix the build" },
    { role: "user", content: "continue" },
  ]);
});
