/**
 * `turnloop config` shows every setting the run uses, those the environment gives included, with
 * the variable as their source (README: config prints "each setting with where it came from"): the
 * context window `TURNLOOP_CONTEXT_WINDOW` sets (which wins over the config file's
 * `contextWindows`, shown too) and the numeric tuning variables (a fresh user's trial,
 * bench/notes/trial.md item 4: they were checked, exit 64 on `abc`, but never shown).
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

const VARIABLES = {
  TURNLOOP_CONTEXT_WINDOW: "5000",
  TURNLOOP_MAX_RETRIES: "2",
  TURNLOOP_RETRY_BASE_DELAY_MS: "10",
  TURNLOOP_STREAM_IDLE_TIMEOUT_MS: "9000",
  TURNLOOP_MCP_STARTUP_WAIT_MS: "1500",
  TURNLOOP_MAX_MESSAGE_BYTES: "70000",
  TURNLOOP_HOOK_TIMEOUT_MS: "45000",
};

describe("turnloop config and the environment's settings", () => {
  test("each variable in force is a row naming it; --json says the same", async ({ cli, home }) => {
    await mkdir(home, { recursive: true });
    const file = join(home, "config.json");
    await writeFile(
      file,
      JSON.stringify({ contextWindows: { "openai-compatible:fake-model": 50000 } }),
    );
    const text = await cli(["config"], { env: VARIABLES });
    expect(text.code, text.stderr).toBe(0);
    const rows = text.stdout
      .split("\n")
      .filter((line) =>
        /^(contextWindow|maxRetries|retryBase|streamIdle|mcpStartup|maxMessage|hookTimeout)/.test(
          line,
        ),
      );
    // Values in one column, after the longest name (trial 30: a long key pushed its value out).
    const width = "contextWindows.openai-compatible:fake-model".length;
    const row = (name: string, value: string, source: string) =>
      `${name.padEnd(width)} ${value}    from ${source}`;
    expect(rows).toEqual([
      row("contextWindows.openai-compatible:fake-model", "50000 tokens", file),
      row("contextWindow", "5000 tokens", "TURNLOOP_CONTEXT_WINDOW"),
      row("maxRetries", "2", "TURNLOOP_MAX_RETRIES"),
      row("retryBaseDelayMs", "10", "TURNLOOP_RETRY_BASE_DELAY_MS"),
      row("streamIdleTimeoutMs", "9000", "TURNLOOP_STREAM_IDLE_TIMEOUT_MS"),
      row("mcpStartupWaitMs", "1500", "TURNLOOP_MCP_STARTUP_WAIT_MS"),
      row("maxMessageBytes", "70000", "TURNLOOP_MAX_MESSAGE_BYTES"),
      row("hookTimeoutMs", "45000", "TURNLOOP_HOOK_TIMEOUT_MS"),
    ]);

    const json = await cli(["config", "--json"], { env: VARIABLES });
    const shown = JSON.parse(json.stdout) as Record<string, unknown>;
    expect({ contextWindow: shown.contextWindow, tuning: shown.tuning }).toEqual({
      contextWindow: { value: 5000, source: "TURNLOOP_CONTEXT_WINDOW" },
      tuning: {
        maxRetries: { value: 2, source: "TURNLOOP_MAX_RETRIES" },
        retryBaseDelayMs: { value: 10, source: "TURNLOOP_RETRY_BASE_DELAY_MS" },
        streamIdleTimeoutMs: { value: 9000, source: "TURNLOOP_STREAM_IDLE_TIMEOUT_MS" },
        mcpStartupWaitMs: { value: 1500, source: "TURNLOOP_MCP_STARTUP_WAIT_MS" },
        maxMessageBytes: { value: 70000, source: "TURNLOOP_MAX_MESSAGE_BYTES" },
        hookTimeoutMs: { value: 45000, source: "TURNLOOP_HOOK_TIMEOUT_MS" },
      },
    });
  });

  // A trial of session 23's build (round 3, session 24, #10): with no flag or variable, nothing
  // said which window a session gets when the files' contextWindows name several ids.
  test("the window a session gets is a row too: from the files' entry of the model's id, the catalogue or the default", async ({
    cli,
    home,
  }) => {
    await mkdir(home, { recursive: true });
    const file = join(home, "config.json");
    const windowRows = async (model: string) => {
      const text = await cli(["config", "--model", model]);
      expect(text.code, text.stderr).toBe(0);
      return text.stdout.split("\n").filter((line) => line.startsWith("contextWindow "));
    };
    // Values in one column, after the longest name (the contextWindows entry below).
    const row = (value: string, source: string) =>
      `${"contextWindow".padEnd("contextWindows.openai-compatible:m".length)} ${value}    from ${source}`;
    await writeFile(
      file,
      JSON.stringify({
        providers: {
          lab: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" },
          work: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" },
        },
        contextWindows: { "lab:m": 5000, "openai-compatible:m": 6000 },
      }),
    );
    // A profile's model is looked up by its own id first, then its provider type's, as sessions
    // look it up.
    expect(await windowRows("lab:m")).toEqual([
      row("5000 tokens", `contextWindows.lab:m in ${file}`),
    ]);
    expect(await windowRows("work:m")).toEqual([
      row("6000 tokens", `contextWindows.openai-compatible:m in ${file}`),
    ]);
    expect(await windowRows("openai-compatible:unknown-one")).toEqual([
      row("128000 tokens", "default (the catalogue does not know openai-compatible:unknown-one)"),
    ]);
    expect(await windowRows("ollama:qwen3")).toEqual([
      row("4096 tokens", "default for Ollama models (Ollama's smallest default context)"),
    ]);
    expect(await windowRows("anthropic:claude-sonnet-4-5")).toEqual([
      expect.stringMatching(
        /^contextWindow {22}\d+ tokens {4}from the model catalogue \(anthropic:claude-sonnet-4-5\)$/,
      ),
    ]);
  });
});
