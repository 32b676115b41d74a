import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Issue 26, figure 7d (round 3, session 14): each web stream stage of a model response costs the
 * main thread native objects and a promise hop per chunk. The built CLI parses a response's
 * events in one stage of provider-utils (src/llm/sse-event-transform.ts, put there by
 * scripts/bundle.mjs) and the OpenAI Chat fetch normalises chunks inside the body stream
 * (src/llm/openai-chat-quirks.ts), so a request makes one `TransformStream` through the global
 * constructor: the AI SDK model's own (`doStream`). It was four on the OpenAI Chat wire (the
 * normaliser's, `EventSourceParserStream`, the parsing transform, `doStream`'s) and three on the
 * others; two in session 14, until the parsing stage became a `ReadableStream` reading the body
 * itself (session 18: it releases no lock, src/llm/sse-event-transform.ts). Node's
 * `TextDecoderStream`, no longer made either, is not counted here.
 */

const RECORDER = fileURLToPath(new URL("./transform-recorder.mjs", import.meta.url));

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_TRANSFORM_LOG",
  name: "stages",
});

describe("a model response's web stream stages (issue 26, figure 7d)", () => {
  test.each(["openai-chat:gpt-4.1", "openai:gpt-5", "anthropic:claude-sonnet-4-5"])(
    "-p with %s: one request, one TransformStream",
    async (model) => {
      await cli.promptDone(model);
      expect(readFileSync(cli.log, "utf8")).toBe("1\n");
    },
  );
});
