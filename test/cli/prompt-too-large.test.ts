import { describe, expect } from "vitest";
import { PROMPT_BEYOND_WINDOW } from "../support/context-limit.js";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { unsavedPromptResult } from "../support/unsaved-result.js";

// `-p` with a prompt beyond the model's known context window (trial 32, F4): refused before it is
// stored or sent, exit 3, the advice in the command line's words; an unknown window sends it.

test.override({ git: true });

/** The refusal as `-p` says it on stderr (the estimate's exact figure aside). */
const REFUSAL =
  /^turnloop: the prompt is about (\d+) tokens with the system prompt and tools \(99999 characters\), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent\. Send a smaller part of it or fewer files, use a model with a larger window \(--model or TURNLOOP_MODEL\), or, if openai-compatible:fake-model's window is larger, set it with --context-window or TURNLOOP_CONTEXT_WINDOW\.\n/;

/** `--output-format json`'s result of a prompt refused before anything was stored or sent, its duration and message blanked. */
const REFUSED_RESULT = unsavedPromptResult("error_prompt_too_large", {
  type: "context_length_exceeded",
  message: "",
});

describe("a prompt beyond the model's context window", () => {
  test("is refused before any request, exit 3, nothing on stdout and no session saved; with no known window it is sent", async ({
    cli,
    model,
  }) => {
    const refused = await cli(["-p", "-", "--context-window", "8000"], {
      stdin: PROMPT_BEYOND_WINDOW,
    });
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 3, stdout: "" });
    expect(refused.stderr).toMatch(REFUSAL);
    expect(Number(REFUSAL.exec(refused.stderr)?.[1])).toBeGreaterThan(25_000);
    expect(refused.stderr).toMatch(
      /\n0 turns · tokens not reported · [\d.]+ s · session not saved\n$/,
    );
    expect(model.requests).toHaveLength(0);
    const listed = await cli(["sessions"]);
    expect(listed.stdout).not.toContain("word word");

    model.enqueue({ text: "ok" });
    const sent = await cli(["-p", "-"], { stdin: PROMPT_BEYOND_WINDOW });
    expect({ code: sent.code, stdout: sent.stdout }).toEqual({ code: 0, stdout: "ok\n" });
    const users = chatMessages(model, 0).filter((message) => message.role === "user");
    expect(users.at(-1)?.content).toBe(PROMPT_BEYOND_WINDOW);
  });

  test("--output-format json and stream-json print the error result only: subtype error_prompt_too_large, exit 3", async ({
    cli,
    model,
  }) => {
    const refused = await cli(["-p", "-", "--output-format", "json"], {
      stdin: PROMPT_BEYOND_WINDOW,
      env: { TURNLOOP_CONTEXT_WINDOW: "8000" },
    });
    expect(refused.code).toBe(3);
    const result = JSON.parse(refused.stdout) as Record<string, unknown>;
    expect(refused.stdout.trim().split("\n")).toHaveLength(1);
    const error = result.error as { type: string; message: string };
    expect({ ...result, duration_ms: 0, error: { ...error, message: "" } }).toEqual(REFUSED_RESULT);
    expect(`turnloop: ${error.message}\n`).toMatch(REFUSAL);
    expect(refused.stderr).toMatch(REFUSAL);
    // stream-json: no event line of a prompt that never ran, only the same result line.
    const streamed = await cli(["-p", "-", "--output-format", "stream-json"], {
      stdin: PROMPT_BEYOND_WINDOW,
      env: { TURNLOOP_CONTEXT_WINDOW: "8000" },
    });
    expect(streamed.code).toBe(3);
    const lines = streamed.stdout.trim().split("\n");
    expect(lines.map((line) => ({ ...JSON.parse(line), duration_ms: 0 }))).toEqual([
      { ...result, duration_ms: 0 },
    ]);
    expect(model.requests).toHaveLength(0);
  });

  test("in a session that goes on (--continue), nothing of the refused prompt is stored: the next prompt's request holds the earlier turn only", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "first answer" });
    const first = await cli(["-p", "first"]);
    expect(first.code).toBe(0);
    const sessionId = printedSessionId(first.stderr);
    const refused = await cli(["-p", "-", "--continue", "--context-window", "8000"], {
      stdin: PROMPT_BEYOND_WINDOW,
    });
    expect(refused.code).toBe(3);
    expect(model.requests).toHaveLength(1);
    model.enqueue({ text: "second answer" });
    expect((await cli(["-p", "second", "--continue"])).code).toBe(0);
    const sent = chatMessages(model, 1).filter((message) => message.role !== "system");
    expect(sent).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "second" },
    ]);
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("second answer");
    expect(shown.stdout).not.toContain("word word");
    expect(shown.stdout).not.toContain("context window");
  });

  test("a window the system prompt and tools alone fill (trial 45 F1): refused the same way, saying so, for a new session and one that goes on (--continue)", async ({
    cli,
    model,
  }) => {
    const fixedRefusal =
      /^the system prompt and the \d+ tool definitions alone take about (\d+) tokens, more than the context window of openai-compatible:fake-model, 1000 tokens, before any prompt; nothing was sent\. If openai-compatible:fake-model's window is larger, set it with --context-window or TURNLOOP_CONTEXT_WINDOW; else use a model with a larger window \(--model or TURNLOOP_MODEL\), or configure fewer MCP servers or tools\.$/;
    const refused = await cli([
      "-p",
      "refused at once",
      "--context-window",
      "1000",
      "--output-format",
      "json",
    ]);
    expect(refused.code).toBe(3);
    const result = JSON.parse(refused.stdout) as Record<string, unknown>;
    const error = result.error as { type: string; message: string };
    expect(error.message).toMatch(fixedRefusal);
    expect({ ...result, duration_ms: 0, error: { ...error, message: "" } }).toEqual(REFUSED_RESULT);
    expect((await cli(["sessions"])).stdout).not.toContain("refused at once");

    model.enqueue({ text: "first answer" });
    const first = await cli(["-p", "first"]);
    expect(first.code).toBe(0);
    const sessionId = printedSessionId(first.stderr);
    const continued = await cli(["-p", "never stored", "--continue", "--context-window", "1000"]);
    expect(continued.code).toBe(3);
    expect(continued.stderr.split("\n")[0]?.replace(/^turnloop: /, "")).toMatch(fixedRefusal);
    expect(model.requests).toHaveLength(1);
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("first answer");
    expect(shown.stdout).not.toContain("never stored");
    expect(shown.stdout).not.toContain("context window");
  });
});
