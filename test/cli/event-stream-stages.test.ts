import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Issue 26, figure 7d (round 3, session 14): each web stream stage of a model response costs the
 * main thread native objects and a promise hop per chunk. The built CLI parses a response's
 * events in one stage of provider-utils (src/llm/sse-event-transform.ts, put there by
 * scripts/bundle.mjs) and the OpenAI Chat fetch normalises chunks inside the body stream
 * (src/llm/openai-chat-quirks.ts). It was four `TransformStream`s a request on the OpenAI Chat wire
 * (the normaliser's, `EventSourceParserStream`, the parsing transform, `doStream`'s) and three on
 * the others; two in session 14, until the parsing stage became a `ReadableStream` reading the
 * body itself (session 18: it releases no lock, src/llm/sse-event-transform.ts); one, the AI SDK
 * model's own (`doStream`), until session 40: the bundle's providers make it a `ValueTransform`
 * (scripts/providers-as-bundled.mjs), whose transformer the parsed events' stream runs itself
 * (src/llm/lock-keeping-stream.ts), so none is made (figure 3d, bench/notes/turn40.md). The
 * `@ai-sdk/openai` models `tee` the parsed events first (to look for an error before any output),
 * and the Anthropic model its parts: that stream's own `tee` gives branches of its kind. Node's
 * `TextDecoderStream`, no longer made either, is not counted here.
 *
 * Nor is any `ReadableStream` but the response body's (src/llm/http-response.ts `bodyStream`):
 * the parsed events' stream and the provider's result are `LockKeepingStream`s, which make a web
 * stream only when a member needs one (src/llm/lock-keeping-stream.ts; session 44, issue 26
 * figure 3c: two native objects a request fewer, bench/notes/turn44.md), and their `tee`s' branches
 * are of the same kind. The `@ai-sdk/openai` and `@ai-sdk/anthropic` models read one branch with
 * a reader (their early-error check), which makes one, and the process builds Node's
 * released-lock errors once (src/llm/first-response.ts `releasedLockErrors`) with another.
 */

const RECORDER = fileURLToPath(new URL("./transform-recorder.mjs", import.meta.url));

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_TRANSFORM_LOG",
  name: "stages",
});

describe("a model response's web stream stages (issue 26, figures 7d and 3d)", () => {
  test.each([
    ["openai-compatible:bench-model", 0, 1],
    ["anthropic:claude-sonnet-4-5", 0, 3],
    ["openai-chat:gpt-4.1", 0, 3],
    ["openai:gpt-5", 0, 3],
  ])(
    "-p with %s: one request, %i TransformStream, %i ReadableStream",
    async (model, transforms, readables) => {
      await cli.promptDone(model);
      expect(readFileSync(cli.log, "utf8")).toBe(`${transforms} ${readables}\n`);
    },
  );
});
