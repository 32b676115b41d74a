import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Issue 26, figure 1a (round 3, session 18): the first `releaseLock` of a web stream reader and of
 * a writer in a process makes Node 20 build its released-lock error, reading its stack back in a
 * `vm` context of its own: about 3 % of a `-p` run's instructions. On the OpenAI-compatible wire
 * (and Ollama's, the same model) a response's stages release no lock in the built CLI
 * (src/llm/lock-keeping-stream.ts, `LockKeepingStream`; the bundled provider-utils keeps its
 * body reader, scripts/bundle.mjs), so a run builds neither error and makes no context. The AI
 * SDK's OpenAI and Anthropic models release a reader of their own and pipe a `tee`'s branch: there
 * the errors are built once, with no stack frames, while the first request waits for its answer
 * (src/llm/first-response.ts). Counts, never times.
 */

const RECORDER = fileURLToPath(new URL("./released-lock-recorder.mjs", import.meta.url));

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_RELEASED_LOCK_LOG",
  name: "locks",
});

describe("a model response and released web stream locks (issue 26, figure 1a)", () => {
  test.each(["openai-compatible:my-own-model", "ollama:llama3.2"])(
    "-p with %s: no released-lock error built, no vm context made",
    async (model) => {
      await cli.promptDone(model);
      expect(readFileSync(cli.log, "utf8")).toBe("");
    },
  );

  test.each(["openai-chat:gpt-4.1", "openai:gpt-5", "anthropic:claude-sonnet-4-5"])(
    "-p with %s: the errors built once each, with no stack frames",
    async (model) => {
      await cli.promptDone(model);
      expect(readFileSync(cli.log, "utf8").split("\n").filter(Boolean).sort()).toEqual([
        "context: runInNewContext",
        "error: Invalid state: Reader released, 0 frames",
        "error: Invalid state: Releasing reader, 0 frames",
        "error: Invalid state: Writer has been released, 0 frames",
      ]);
    },
  );
});
