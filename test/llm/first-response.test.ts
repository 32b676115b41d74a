import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterEach, describe, expect, test } from "vitest";
import { type PreparationStage, prepareAt, runPreparations } from "../../src/llm/first-response.js";
import { ModelAttempt } from "../../src/llm/model-attempt.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { SAMPLE_CHUNKS, withSyncChunkValidation } from "../../src/llm/sync-chunk-validation.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { CHAT_DONE, chatDelta, compatibleModel } from "./helpers.js";

// Issue 26 (4e): one-time work the first response would pay on its way to the user: what the first
// part needs when the headers arrive (in the wait for the first token), the rest after that part.

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Resolves once every preparation of `stage` queued before it has run (they run in order). */
function preparationsDone(stage: PreparationStage): Promise<void> {
  return new Promise((resolve) => prepareAt(stage, resolve));
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
  test("the chunk schema parses the first sample at the headers, the rest after the first part, once", async () => {
    const model = compatibleModel("http://127.0.0.1:9/v1");
    const parses = countParses(model);
    withSyncChunkValidation(model);
    expect(parses.results).toEqual([]);
    const headers = preparationsDone("headers");
    runPreparations("headers");
    await headers;
    expect(parses.results).toEqual([true]);
    const firstPart = preparationsDone("first part");
    runPreparations("first part");
    await firstPart;
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
    const again = Promise.all([preparationsDone("headers"), preparationsDone("first part")]);
    runPreparations("headers");
    runPreparations("first part");
    await again;
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
  });

  test("an attempt starts the stages after its request reached the server, in order", async () => {
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
    const seenAt: Array<[PreparationStage, number, string[]]> = [];
    for (const stage of ["headers", "first part"] as const) {
      prepareAt(stage, () => seenAt.push([stage, server?.requests.length ?? 0, [...seen]]));
    }
    const done = Promise.all([preparationsDone("headers"), preparationsDone("first part")]);
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
    // Each after the request reached the server; the second only once the first part was read.
    expect(seenAt.map(([stage, requests]) => [stage, requests])).toEqual([
      ["headers", 1],
      ["first part", 1],
    ]);
    expect(seenAt[1]?.[2].includes("text_delta")).toBe(true);
  });

  test("what the first event's handler queues for the next turn goes before the first preparation", async () => {
    const order: string[] = [];
    prepareAt("first part", () => order.push("preparation"));
    const done = preparationsDone("first part");
    // As ModelAttempt does: the stage starts, then the event's handler runs and queues its turn
    // (the ACP outbox sending the first text chunk).
    runPreparations("first part", 2);
    await Promise.resolve();
    setImmediate(() => order.push("the handler's next turn"));
    await done;
    expect(order).toEqual(["the handler's next turn", "preparation"]);
  });
});
