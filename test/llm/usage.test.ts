import { describe, expect } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import type { RawPiece } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { type Harness, type HarnessOptions, shape } from "../support/harness.js";
import {
  CHAT_DONE,
  chatChunk,
  chatDelta,
  countOf,
  dataOf,
  requestBody,
  statuses,
} from "./helpers.js";

/** Case 15 is about OpenAI-compatible servers; both SDK packages for that wire get each stream. */
const MODELS = [
  ["openai-compatible", { model: "openai-compatible:fake-model" }],
  ["openai-chat", { model: "openai-chat:gpt-4.1" }],
] as const satisfies ReadonlyArray<readonly [string, HarnessOptions]>;

const usageOnly = (input: number, output: number) =>
  chatChunk({
    choices: [],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  });

/** Test 1: the documented `include_usage` shape, the usage in a final `choices: []` chunk. */
const standardStream: RawPiece[] = [
  chatChunk({
    choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }],
    usage: null,
  }),
  chatChunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: null }),
  usageOnly(120, 3),
  CHAT_DONE,
];

/** Test 2: a keep-alive without a `choices` key first, and a `choices: null` chunk mid-stream. */
const keepAliveStream: RawPiece[] = [
  chatChunk({ usage: null }),
  chatDelta({ role: "assistant", content: "h" }),
  chatChunk({ choices: null }),
  chatDelta({ content: "i" }),
  chatDelta({}, "stop"),
  usageOnly(120, 3),
  CHAT_DONE,
];

/** Usage that has no `choices` key at all (Groq, Fireworks, gateways). */
const usageWithoutChoices = (input: number, output: number) =>
  chatChunk({
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  });

function assistantUsage(harness: Harness) {
  return dataOf(harness.events, "assistant.usage").map(
    ({ model: _model, turnId: _turnId, ...usage }) => usage,
  );
}

describe.each(MODELS)("case 15 (%s)", (_name, options) => {
  test.for([
    ["test 1: usage in a final choices:[] chunk", standardStream],
    ["test 2: keep-alive and choices:null chunks", keepAliveStream],
  ] as const)("%s is recorded as 120 in / 3 out", async ([_title, stream], { openHarness }) => {
    const harness = await openHarness(options);
    harness.server.enqueue({ raw: stream });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    const persisted = shape(await harness.persisted()).slice(1);
    expect(persisted).toEqual([
      { type: "user.message", data: { content: "hi", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        type: "assistant.message",
        data: { messageId: "message-1", content: "hi", toolRequests: [], finishReason: "stop" },
      },
      {
        type: "assistant.usage",
        data: {
          model: options.model,
          turnId: "turn-1",
          inputTokens: 120,
          outputTokens: 3,
          // No cache or reasoning count: the SDKs derive them from the absent details as 0, but
          // the server reported none (trial 45 F3: the JSON result said 0 cached tokens).
          // The catalogue prices gpt-4.1 ($2 / $8 per million tokens); a made-up model has no cost.
          ...(options.model === "openai-chat:gpt-4.1"
            ? { cost: expect.closeTo(120 * 2e-6 + 3 * 8e-6, 12) }
            : {}),
        },
      },
      {
        type: "assistant.turn_end",
        data: {
          turnId: "turn-1",
          status: "completed",
          finishReason: "stop",
          stopReason: "end_turn",
        },
      },
    ]);
  });

  test("test 3: a tool-call stream ending in a usage chunk without choices; the call runs once", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tools: [bashTool] });
    harness.server.enqueue(
      {
        raw: [
          chatDelta({
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: "call_U1",
                type: "function",
                function: { name: "bash", arguments: "" },
              },
            ],
          }),
          chatDelta({
            tool_calls: [{ index: 0, function: { arguments: '{"command":"echo x"}' } }],
          }),
          chatDelta({}, "tool_calls"),
          usageWithoutChoices(120, 3),
          CHAT_DONE,
        ],
      },
      {
        raw: [
          chatDelta({ role: "assistant", content: "done" }),
          chatDelta({}, "stop"),
          usageWithoutChoices(130, 1),
          CHAT_DONE,
        ],
      },
    );
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(countOf(harness.events, "tool.execution_start")).toBe(1);
    expect(dataOf(harness.events, "tool.execution_complete")).toEqual([
      expect.objectContaining({ toolCallId: "call_U1", success: true }),
    ]);
    // Usage is recorded per model request; a prompt's usage is their sum (250 / 4 here).
    const usage = assistantUsage(harness);
    expect(usage.map((turn) => [turn.inputTokens, turn.outputTokens])).toEqual([
      [120, 3],
      [130, 1],
    ]);
    const persisted = await harness.persisted();
    expect(dataOf(persisted, "assistant.usage")).toHaveLength(2);
    expect(countOf(persisted, "assistant.turn_start")).toBe(harness.server.requests.length);
    expect(statuses(harness)).toEqual([200, 200]);
  });

  test("test 4: a server that sends no usage gives usage with no token fields, never zeros", async ({
    openHarness,
  }) => {
    const harness = await openHarness(options);
    harness.server.enqueue({ text: "hi", usage: null });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    const [usage] = dataOf(await harness.persisted(), "assistant.usage");
    expect(usage).toEqual({ model: options.model, turnId: expect.any(String) });
  });

  test("streaming requests ask for usage with stream_options.include_usage", async ({
    openHarness,
  }) => {
    const harness = await openHarness(options);
    harness.server.enqueue({ text: "hi" });
    await harness.prompt("hi");
    expect(requestBody(harness, 0)).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe("case 15 test 5: a server that rejects stream_options", () => {
  test("is asked again without it, once, and that is remembered for the provider", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ server: { rejectStreamOptions: true } });
    harness.server.enqueue({ text: "first", usage: null }, { text: "second", usage: null });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([400, 200]);
    expect(harness.server.requests[0]?.validationError).toMatch(/stream_options/);
    expect("stream_options" in requestBody(harness, 1)).toBe(false);

    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([400, 200, 200]);
    expect("stream_options" in requestBody(harness, 2)).toBe(false);

    const persisted = await harness.persisted();
    expect(countOf(persisted, "session.error")).toBe(0);
    // Three requests, three turns: the rejected one ended failed and was retried at once.
    expect(countOf(persisted, "assistant.turn_start")).toBe(3);
    expect(dataOf(persisted, "assistant.retry")).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 400, delayMs: 0 }),
    ]);
    expect(dataOf(persisted, "assistant.message").map((message) => message.content)).toEqual([
      "first",
      "second",
    ]);
    // Without stream_options the server sends no usage: absent, not zero.
    expect(assistantUsage(harness)).toEqual([{}, {}]);
  });
});
