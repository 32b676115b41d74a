import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Issue 26: model requests go over `node:http` (src/llm/http-fetch.ts), and nothing on the way
 * touches Node's global `fetch`, `Headers` or `Response`, whose first use loads undici (about
 * 6 MiB of resident memory, 14 MiB with its HTTP parser). The built CLI runs a whole prompt on
 * each wire with a recorder of the built-in modules it loaded (test/cli/builtin-recorder.mjs).
 */

const RECORDER = fileURLToPath(new URL("./builtin-recorder.mjs", import.meta.url));
const UNDICI = "NativeModule internal/deps/undici/undici";

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_BUILTIN_LOG",
  name: "undici",
});

function builtinsLoaded(): string[] {
  return readFileSync(cli.log, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

describe("a prompt never loads undici (issue 26)", () => {
  test.each(["openai-chat:gpt-4.1", "openai:gpt-5", "anthropic:claude-sonnet-4-5"])(
    "-p with %s: the reply arrives over node:http, and undici is not loaded",
    async (model) => {
      await cli.promptDone(model);
      const loaded = builtinsLoaded();
      expect(loaded).toContain("NativeModule http");
      expect(loaded).not.toContain(UNDICI);
    },
  );

  test("the recorder sees undici when the global Headers is touched (so the check above can fail)", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, ["-e", "new Headers({ a: 'b' })"], {
      env: cli.environment("openai-chat:gpt-4.1"),
      stdio: "ignore",
    });
    const code = await new Promise((resolve) => child.once("close", resolve));
    expect(code).toBe(0);
    expect(builtinsLoaded()).toContain(UNDICI);
  });
});
