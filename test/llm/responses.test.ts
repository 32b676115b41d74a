import { describe, expect } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import { test } from "../support/fixtures.js";
import { type Harness, type HarnessOptions, types } from "../support/harness.js";
import type { JsonObject } from "../support/json.js";
import { dataOf, objectsIn, requestBody, statuses, waitForEvent } from "./helpers.js";

/** The conversation items of a Responses request: everything in `input` but the instructions. */
function conversationItems(harness: Harness, index: number): JsonObject[] {
  return objectsIn(requestBody(harness, index), "input").filter(
    (item) => item.role !== "developer" && item.role !== "system",
  );
}

/** The Responses wire with bash, on a server that insists on `include` of encrypted reasoning. */
const STATELESS_RESPONSES: HarnessOptions = {
  wire: "openai-responses",
  tools: [bashTool],
  server: { requireEncryptedReasoningInclude: true },
};

describe("case 23: Responses API, stateless replay", () => {
  test("every function_call is answered (also after cancel), reasoning is replayed by encrypted content without id", async ({
    openHarness,
  }) => {
    const harness = await openHarness(STATELESS_RESPONSES);
    harness.server.enqueue({
      encryptedReasoning: "ENC_1",
      toolCalls: [
        { id: "call_R1", name: "bash", arguments: '{"command":"echo a"}' },
        { id: "call_R2", name: "bash", arguments: '{"command":"sleep 30"}' },
      ],
      usage: { input: 30, output: 20 },
    });
    const controller = new AbortController();
    const secondCallRuns = waitForEvent(
      harness,
      (event) => event.type === "tool.execution_running" && event.data.toolCallId === "call_R2",
    );
    const running = harness.prompt("id 2", controller.signal);
    await secondCallRuns;
    controller.abort();
    expect(await running).toEqual({ stopReason: "cancelled" });

    // R1: stateless, asking for the encrypted reasoning it will have to replay.
    const first = requestBody(harness, 0);
    expect(first.store).toBe(false);
    expect(first.include).toContain("reasoning.encrypted_content");
    expect("previous_response_id" in first).toBe(false);

    const persisted = await harness.persisted();
    expect(types(persisted).slice(1)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "tool.execution_start",
      "tool.execution_complete",
      "tool.execution_start",
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
    ]);
    // The encrypted reasoning is on disk verbatim, so a restart can replay it.
    const [message] = dataOf(persisted, "assistant.message");
    expect(message?.reasoningParts).toEqual([
      {
        text: "",
        providerMetadata: {
          openai: expect.objectContaining({ reasoningEncryptedContent: "ENC_1" }),
        },
        // Sent back to this endpoint alone (reasoning-endpoint.test.ts).
        endpoint: `openai ${harness.server.url}/v1`,
      },
    ]);
    const results = dataOf(persisted, "tool.execution_complete");
    expect(results.map((result) => [result.toolCallId, result.success])).toEqual([
      ["call_R1", true],
      ["call_R2", false],
    ]);
    const echoOutput = results[0]?.result.content ?? "";
    const cancelledOutput = results[1]?.result.content ?? "";
    expect(echoOutput).toMatch(/^a\n/);
    expect(cancelledOutput).toMatch(/cancelled/i);

    harness.server.enqueue({ text: "ok" });
    expect(await harness.prompt("id 3")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200, 200]);
    const second = requestBody(harness, 1);
    expect(second.store).toBe(false);
    expect(second.include).toContain("reasoning.encrypted_content");
    expect("previous_response_id" in second).toBe(false);
    const expectedItems = [
      { role: "user", content: [{ type: "input_text", text: "id 2" }] },
      { type: "reasoning", encrypted_content: "ENC_1", summary: [] },
      {
        type: "function_call",
        call_id: "call_R1",
        name: "bash",
        arguments: '{"command":"echo a"}',
      },
      {
        type: "function_call",
        call_id: "call_R2",
        name: "bash",
        arguments: '{"command":"sleep 30"}',
      },
      { type: "function_call_output", call_id: "call_R1", output: echoOutput },
      { type: "function_call_output", call_id: "call_R2", output: cancelledOutput },
    ];
    expect(conversationItems(harness, 1)).toEqual([
      ...expectedItems,
      { role: "user", content: [{ type: "input_text", text: "id 3" }] },
    ]);

    // After a restart the same items are rebuilt from events.jsonl alone.
    await harness.reopen();
    harness.server.enqueue({ text: "fine" });
    expect(await harness.prompt("id 4")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200, 200, 200]);
    expect(conversationItems(harness, 2).slice(0, expectedItems.length)).toEqual(expectedItems);
    expect("previous_response_id" in requestBody(harness, 2)).toBe(false);
  });

  test("reasoning with a summary is replayed with its summary text and encrypted content, without ids", async ({
    openHarness,
  }) => {
    const harness = await openHarness(STATELESS_RESPONSES);
    harness.server.enqueue(
      {
        reasoning: ["Run ", "echo."],
        encryptedReasoning: "ENC_2",
        text: "Running it.",
        toolCalls: [{ id: "call_E", name: "bash", arguments: '{"command":"echo b"}' }],
      },
      { text: "done" },
    );
    expect(await harness.prompt("echo b")).toEqual({ stopReason: "end_turn" });
    expect(
      dataOf(harness.events, "assistant.reasoning_delta").map((delta) => delta.deltaContent),
    ).toEqual(["Run ", "echo."]);
    expect(statuses(harness)).toEqual([200, 200]);
    const items = conversationItems(harness, 1);
    expect(items.slice(1, 4)).toEqual([
      {
        type: "reasoning",
        encrypted_content: "ENC_2",
        summary: [{ type: "summary_text", text: "Run echo." }],
      },
      { role: "assistant", content: [{ type: "output_text", text: "Running it." }] },
      { type: "function_call", call_id: "call_E", name: "bash", arguments: '{"command":"echo b"}' },
    ]);
    // No replayed item carries a server-side id: with store:false the server has none.
    expect(items.filter((item) => "id" in item)).toEqual([]);
  });
});
