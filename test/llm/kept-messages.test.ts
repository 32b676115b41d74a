/**
 * Issue 26 (CPU per model request): an OpenAI-compatible chat model converts only the messages a
 * request adds to an earlier request's prompt (src/llm/sync-chunk-validation.ts `withKeptMessages`).
 * Every body must be the one the AI SDK builds from the whole prompt alone: as turns are added, a
 * result inserted between others, a history replaced (compaction), a request sent again, and two
 * conversations taking turns on one model.
 */

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
} from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput } from "../../src/events/events.js";
import { toPrompt } from "../../src/llm/convert.js";
import { collectGarbage, withHugeBodies } from "../../src/llm/huge-messages.js";
import { withKeptMessages } from "../../src/llm/sync-chunk-validation.js";
import { buildEvents } from "../session/support.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { compatibleModel } from "./helpers.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A turn of `calls` calls of `view` (parallel when more than one) and their results. */
function toolTurn(turn: number, calls = 1): EventInput[] {
  const ids = Array.from({ length: calls }, (_, index) => `call_${turn}_${index}`);
  return [
    { type: "assistant.turn_start", data: { turnId: String(turn) } },
    {
      type: "assistant.message",
      data: {
        messageId: `m${turn}`,
        content: turn % 2 === 0 ? "" : `looking ${turn}`,
        toolRequests: ids.map((toolCallId, index) => ({
          toolCallId,
          name: "view",
          arguments: { path: `notes-${turn}.md`, view_range: [index + 1, index + 10] },
        })),
        finishReason: "tool-calls",
      },
    },
    ...ids.map(
      (toolCallId): EventInput => ({
        type: "tool.execution_complete",
        data: { toolCallId, toolName: "view", success: true, result: { content: `${toolCallId}` } },
      }),
    ),
    { type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } },
  ];
}

function userMessage(content: string): EventInput {
  return { type: "user.message", data: { content, source: "user" } };
}

function compaction(messagesRemoved: number): EventInput {
  return {
    type: "session.compaction_complete",
    data: {
      success: true,
      trigger: "manual",
      preCompactionTokens: 1000,
      messagesRemoved,
      summaryContent: `the first ${messagesRemoved} messages`,
    },
  };
}

function fold(history: History, inputs: readonly EventInput[]): void {
  for (const event of buildEvents(inputs)) {
    history.apply(event);
  }
}

/** Sends `history`'s prompt through `model` and drains the reply; returns the body received. */
async function bodyOf(
  model: LanguageModelV3,
  history: History,
  system = "system",
): Promise<string> {
  const options: LanguageModelV3CallOptions = { prompt: toPrompt(system, history.messages) };
  const { stream } = await model.doStream(options);
  for await (const _part of stream) {
    // drained
  }
  const request = server?.requests.at(-1);
  return JSON.stringify(request?.body);
}

/** The SDK's chat model with the method that builds a request's fields (its own, private). */
type ChatModel = LanguageModelV3 & {
  getArgs(options: LanguageModelV3CallOptions): Promise<{ args: { messages: unknown[] } }>;
};

/** The wire messages `model` builds for `history`'s prompt, as JSON. */
async function messagesOf(model: ChatModel, history: History): Promise<string> {
  const { args } = await model.getArgs({ prompt: toPrompt("system", history.messages) });
  return JSON.stringify(args.messages);
}

/**
 * Each request's body from a kept-messages model and from the SDK's model alone, in order; with
 * `filling`, the kept one's fetch is turnloop's, which fills in placeholders (huge-messages.ts).
 */
async function bodiesOf(
  steps: Array<(send: (history: History) => Promise<void>) => Promise<void>>,
  filling = false,
) {
  server = await startFakeModelServer();
  server.setResponder(() => ({ text: "ok" }));
  const kept = withKeptMessages(
    filling ? fillingModel(`${server.url}/v1`) : compatibleModel(`${server.url}/v1`),
  );
  const plain = compatibleModel(`${server.url}/v1`);
  const bodies = { kept: [] as string[], plain: [] as string[] };
  for (const step of steps) {
    await step(async (history) => {
      bodies.kept.push(await bodyOf(kept, history));
      bodies.plain.push(await bodyOf(plain, history));
    });
  }
  return bodies;
}

/** {@link compatibleModel} with the fetch turnloop gives it (models.ts). */
function fillingModel(baseUrl: string): LanguageModelV3 {
  return createOpenAICompatible({
    name: "openai-compatible",
    baseURL: baseUrl,
    apiKey: "test-key",
    includeUsage: true,
    fetch: withHugeBodies(),
  }).chatModel("fake-model");
}

describe.each([
  ["", false],
  [" serialised once by turnloop's fetch", true],
])("an OpenAI-compatible model's kept wire messages%s", (_title, filling) => {
  it("sends the body the SDK builds from the whole prompt, turn after turn", async () => {
    const history = new History();
    const other = new History();
    const bodies = await bodiesOf(conversationSteps(history, other), filling);
    expect(bodies.kept).toHaveLength(12);
    expect(bodies.kept).toEqual(bodies.plain);
  });
});

/** Turns, a retry, a second conversation and compactions, each step sending its requests. */
function conversationSteps(
  history: History,
  other: History,
): Array<(send: (history: History) => Promise<void>) => Promise<void>> {
  return [
    async (send) => {
      fold(history, [userMessage("read the notes"), ...toolTurn(1)]);
      await send(history);
    },
    async (send) => {
      fold(history, [...toolTurn(2, 3), ...toolTurn(3)]);
      await send(history);
      // The same prompt again (a retried request).
      await send(history);
    },
    async (send) => {
      // Another conversation on the same model, taking turns with the first.
      fold(other, [userMessage("another"), ...toolTurn(1)]);
      await send(other);
      fold(history, toolTurn(4));
      await send(history);
      fold(other, toolTurn(2));
      await send(other);
    },
    async (send) => {
      fold(history, [...toolTurn(9, 2)]);
      await send(history);
      fold(history, [userMessage("and now?"), ...toolTurn(10)]);
      await send(history);
    },
    async (send) => {
      // Compactions: a summary in place of the history's start, its last messages kept; the
      // first replaces one message, so every later message keeps its place.
      for (const messagesRemoved of [1, 14]) {
        fold(history, [compaction(messagesRemoved)]);
        await send(history);
      }
      fold(history, toolTurn(11));
      await send(history);
      fold(history, toolTurn(12));
      await send(history);
    },
  ];
}

describe("an OpenAI-compatible model's kept wire messages", () => {
  it("serialises an earlier wire message once, when its fetch fills in placeholders", async () => {
    const model = withKeptMessages(fillingModel("http://127.0.0.1:9/v1")) as ChatModel;
    const history = new History();
    fold(history, [userMessage("read the notes"), ...toolTurn(1)]);
    const first = (await model.getArgs({ prompt: toPrompt("system", history.messages) })).args;
    expect(first.messages).toHaveLength(4);
    fold(history, toolTurn(2));
    const second = (await model.getArgs({ prompt: toPrompt("system", history.messages) })).args;
    // The system message, then one placeholder for the JSON of the other five.
    expect(second.messages).toHaveLength(2);
    expect(second.messages[1]).toMatch(/^turnloop-huge-text-[-0-9a-f]+-\d+j~$/);
  });

  it("follows a result inserted between kept messages", async () => {
    const kept = withKeptMessages(compatibleModel("http://127.0.0.1:9/v1")) as ChatModel;
    const plain = compatibleModel("http://127.0.0.1:9/v1") as ChatModel;
    const history = new History();
    fold(history, [userMessage("read the notes"), ...toolTurn(1)]);
    const [start, message, first, second, end] = toolTurn(2, 2) as EventInput[];
    const steps: EventInput[][] = [
      [start as EventInput, message as EventInput, second as EventInput],
      // The result that completes last goes before its sibling (history.ts).
      [first as EventInput, end as EventInput],
      toolTurn(3),
    ];
    for (const step of steps) {
      fold(history, step);
      expect(await messagesOf(kept, history)).toEqual(await messagesOf(plain, history));
    }
  });

  it("gives two requests sent at once on one earlier prompt each its own messages", async () => {
    const kept = withKeptMessages(compatibleModel("http://127.0.0.1:9/v1")) as ChatModel;
    const plain = compatibleModel("http://127.0.0.1:9/v1") as ChatModel;
    const history = new History();
    fold(history, [userMessage("read the notes"), ...toolTurn(1)]);
    const earlier = toPrompt("system", history.messages);
    await kept.getArgs({ prompt: earlier });
    const prompts = ["a title, please", "a summary, please"].map((text) => [
      ...earlier,
      { role: "user" as const, content: [{ type: "text" as const, text }] },
    ]);
    const both = await Promise.all(prompts.map((prompt) => kept.getArgs({ prompt })));
    const alone = await Promise.all(prompts.map((prompt) => plain.getArgs({ prompt })));
    expect(both.map(({ args }) => JSON.stringify(args.messages))).toEqual(
      alone.map(({ args }) => JSON.stringify(args.messages)),
    );
  });

  it("lets go of the messages a compaction removed", async () => {
    const model = withKeptMessages(compatibleModel("http://127.0.0.1:9/v1")) as ChatModel;
    const text = (words: string) => [{ type: "text" as const, text: words }];
    const system = { role: "system" as const, content: "system" };
    const tail: LanguageModelV3Message[] = [
      { role: "assistant", content: text("I read them.") },
      { role: "user", content: text("and then?") },
    ];
    /** The first request's prompt, gone once sent; what it held before the tail is watched. */
    const sendEarlier = async () => {
      const removed = { role: "user" as const, content: text("read the notes") };
      await model.getArgs({ prompt: [system, removed, ...tail] });
      return new WeakRef(removed);
    };
    const removed = await sendEarlier();
    // The compacted view keeps the tail after its summary, and a prompt follows it.
    const summary = { role: "user" as const, content: text("the notes were read") };
    const next = { role: "user" as const, content: text("go on") };
    await model.getArgs({ prompt: [system, summary, ...tail, next] });
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(removed.deref()).toBeUndefined();
  });

  it("converts only the messages a request adds", async () => {
    const model = withKeptMessages(compatibleModel("http://127.0.0.1:9/v1")) as ChatModel;
    const history = new History();
    fold(history, [userMessage("read the notes"), ...toolTurn(1)]);
    const first = (await model.getArgs({ prompt: toPrompt("system", history.messages) })).args;
    fold(history, toolTurn(2));
    const second = (await model.getArgs({ prompt: toPrompt("system", history.messages) })).args;
    expect(second.messages).toHaveLength(first.messages.length + 2);
    // The earlier turns' wire messages are the very objects of the first request; the system
    // message is converted anew.
    expect(
      second.messages
        .slice(0, first.messages.length)
        .map((message, index) => message === first.messages[index]),
    ).toEqual([false, true, true, true]);
  });
});
