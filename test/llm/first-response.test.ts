import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterEach, describe, expect, test } from "vitest";
import { prepareOnFirstResponse, runPreparations } from "../../src/llm/first-response.js";
import { ModelAttempt } from "../../src/llm/model-attempt.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { SAMPLE_CHUNKS, withSyncChunkValidation } from "../../src/llm/sync-chunk-validation.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { CHAT_DONE, chatDelta, compatibleModel } from "./helpers.js";

// Issue 26 (3b, 4e): one-time work the first response would pay on its way to the user starts when
// its headers arrive, in the wait for the first token.

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Resolves once every preparation queued before it has run (they run in order). */
function preparationsDone(): Promise<void> {
  return new Promise((resolve) => prepareOnFirstResponse(resolve));
}

/** The SDK's own chunk schema, its `safeParse` counted (the SDK's object, not ours). */
function countParses(model: LanguageModelV3): { results: boolean[] } {
  const schema = (model as { chunkSchema?: { safeParse(value: unknown): { success: boolean } } })
    .chunkSchema;
  if (schema === undefined) {
    throw new Error("the SDK's chat model has no chunkSchema");
  }
  const parse = schema.safeParse.bind(schema);
  const seen = { results: [] as boolean[] };
  schema.safeParse = (value: unknown) => {
    const result = parse(value);
    seen.results.push(result.success);
    return result;
  };
  return seen;
}

describe("preparations before the first parts", () => {
  test("the chunk schema parses every sample chunk once, at the first run, and accepts each", async () => {
    const model = compatibleModel("http://127.0.0.1:9/v1");
    const parses = countParses(model);
    withSyncChunkValidation(model);
    const done = preparationsDone();
    expect(parses.results).toEqual([]);
    runPreparations();
    await done;
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
    const again = preparationsDone();
    runPreparations();
    await again;
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
  });

  test("an attempt starts them once its request reached the server", async () => {
    server = await startFakeModelServer();
    server.enqueue({ raw: [chatDelta({ role: "assistant", content: "Hi" }, "stop"), CHAT_DONE] });
    const model = compatibleModel(`${server.url}/v1`);
    const seen: Array<string> = [];
    const attempt = new ModelAttempt(
      {
        model: async () => model,
        callFor: (_request, abortSignal) => ({
          prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
          abortSignal,
        }),
        idleTimeoutMs: 10_000,
        isTerminator: undefined,
        sharesHugeTexts: false,
      },
      { system: "", messages: [], tools: [] },
      new AbortController().signal,
    );
    const requestsSeen: number[] = [];
    prepareOnFirstResponse(() => requestsSeen.push(server?.requests.length ?? 0));
    const done = preparationsDone();
    for (;;) {
      const next: LlmEvent | { ok: boolean } = await attempt.next();
      if (!("type" in next)) {
        break;
      }
      seen.push(next.type);
    }
    attempt.close();
    await done;
    expect(seen).toEqual(["request_start", "text_delta", "done"]);
    expect(requestsSeen).toEqual([1]);
  });
});
