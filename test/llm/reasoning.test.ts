import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import type { RawPiece } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { chatMessages, type Harness } from "../support/harness.js";
import { CHAT_DONE, chatDelta, dataOf, objectsIn, requestBody, statuses } from "./helpers.js";

const listCall = { id: "call_D1", name: "bash", arguments: '{"command":"ls W"}' };

/** Reasoning deltas streamed per message, in order. */
function reasoningDeltas(harness: Harness): string[] {
  return dataOf(harness.events, "assistant.reasoning_delta").map((delta) => delta.deltaContent);
}

/** The assistant message of a chat request that carries tool call `id`. */
function assistantWithCall(harness: Harness, index: number, id: string) {
  return chatMessages(harness, index).find(
    (message) =>
      message.role === "assistant" &&
      Array.isArray(message.tool_calls) &&
      JSON.stringify(message.tool_calls).includes(id),
  );
}

describe("case 22: reasoning fields of OpenAI-compatible servers", () => {
  test("deepseek: reasoning_content is streamed, stored, and passed back, also after a restart", async ({
    openHarness,
  }) => {
    const harness = await openHarness({
      tools: [bashTool],
      server: { requireReasoningPassback: true },
    });
    await mkdir(join(harness.cwd, "W"));
    harness.server.enqueue(
      { reasoning: ["Check the dir ", "first."], toolCalls: [listCall] },
      { reasoning: "Done.", text: "Listed." },
    );
    expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
    expect(reasoningDeltas(harness)).toEqual(["Check the dir ", "first.", "Done."]);
    const messages = dataOf(await harness.persisted(), "assistant.message");
    expect(
      messages.map(({ reasoning, reasoningParts }) => ({ reasoning, reasoningParts })),
    ).toEqual([
      { reasoning: "Check the dir first.", reasoningParts: [{ text: "Check the dir first." }] },
      { reasoning: "Done.", reasoningParts: [{ text: "Done." }] },
    ]);
    expect(statuses(harness)).toEqual([200, 200]);
    expect(assistantWithCall(harness, 1, "call_D1")?.reasoning_content).toBe(
      "Check the dir first.",
    );

    await harness.reopen();
    harness.server.enqueue({ text: "ok" });
    expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200, 200, 200]);
    expect(assistantWithCall(harness, 2, "call_D1")?.reasoning_content).toBe(
      "Check the dir first.",
    );
  });

  test("vllm: the `reasoning` field is streamed and stored the same way; requests are accepted", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [bashTool] });
    await mkdir(join(harness.cwd, "W"));
    const firstReply: RawPiece[] = [
      chatDelta({ role: "assistant", reasoning: "Check the dir " }),
      chatDelta({ reasoning: "first." }),
      chatDelta({
        tool_calls: [
          {
            index: 0,
            id: "call_D1",
            type: "function",
            function: { name: "bash", arguments: '{"command":"ls W"}' },
          },
        ],
      }),
      chatDelta({}, "tool_calls"),
      CHAT_DONE,
    ];
    const secondReply: RawPiece[] = [
      chatDelta({ role: "assistant", reasoning: "Done." }),
      chatDelta({ content: "Listed." }),
      chatDelta({}, "stop"),
      CHAT_DONE,
    ];
    harness.server.enqueue({ raw: firstReply }, { raw: secondReply }, { text: "ok" });
    expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
    expect(reasoningDeltas(harness)).toEqual(["Check the dir ", "first.", "Done."]);
    const messages = dataOf(await harness.persisted(), "assistant.message");
    expect(messages.map((message) => [message.reasoning, message.content])).toEqual([
      ["Check the dir first.", ""],
      ["Done.", "Listed."],
    ]);
    await harness.reopen();
    expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200, 200, 200]);
  });

  test("inline <think> in content is left as text (documented) and replayed non-empty", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue(
      { text: ["<think>plan</think>", "Listed."] },
      { text: "<think>only thoughts</think>" },
      { text: "ok" },
    );
    expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt("and again")).toEqual({ stopReason: "end_turn" });
    expect(reasoningDeltas(harness)).toEqual([]);
    expect(
      dataOf(await harness.persisted(), "assistant.message").map((message) => message.content),
    ).toEqual(["<think>plan</think>Listed.", "<think>only thoughts</think>", "ok"]);
    expect(statuses(harness)).toEqual([200, 200, 200]);
    expect(
      chatMessages(harness, 2)
        .filter((message) => message.role === "assistant")
        .map((message) => message.content),
    ).toEqual(["<think>plan</think>Listed.", "<think>only thoughts</think>"]);
  });
});

describe("Anthropic thinking is replayed with its signature", () => {
  test("a signed thinking block goes back verbatim before its tool_use, also after a restart", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tools: [bashTool] });
    await mkdir(join(harness.cwd, "W"));
    harness.server.enqueue(
      {
        reasoning: ["Let me ", "check."],
        reasoningSignature: "SIG_1",
        toolCalls: [{ ...listCall, id: "toolu_1" }],
      },
      { text: "Listed." },
      { text: "ok" },
    );
    expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
    expect(reasoningDeltas(harness)).toEqual(["Let me ", "check."]);
    const [stored] = dataOf(await harness.persisted(), "assistant.message");
    expect(stored?.reasoning).toBe("Let me check.");
    expect(stored?.reasoningParts).toEqual([
      {
        text: "Let me check.",
        providerMetadata: { anthropic: { signature: "SIG_1" } },
        // Sent back to this endpoint alone (reasoning-endpoint.test.ts).
        endpoint: `anthropic ${harness.server.url}/v1`,
      },
    ]);
    const expectedAssistant = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Let me check.", signature: "SIG_1" },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls W" } },
      ],
    };
    expect(objectsIn(requestBody(harness, 1), "messages")[1]).toEqual(expectedAssistant);

    await harness.reopen();
    expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
    expect(objectsIn(requestBody(harness, 2), "messages")[1]).toEqual(expectedAssistant);
    expect(statuses(harness)).toEqual([200, 200, 200]);
  });

  test("a redacted thinking block goes back with its data", async ({ openHarness }) => {
    const harness = await openHarness({ wire: "anthropic", tools: [bashTool] });
    await mkdir(join(harness.cwd, "W"));
    harness.server.enqueue(
      { encryptedReasoning: "REDACTED_1", toolCalls: [{ ...listCall, id: "toolu_1" }] },
      { text: "Listed." },
    );
    expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
    expect(objectsIn(requestBody(harness, 1), "messages")[1]).toEqual({
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "REDACTED_1" },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls W" } },
      ],
    });
  });
});
