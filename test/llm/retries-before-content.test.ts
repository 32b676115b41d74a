import { describe, expect } from "vitest";
import type { RawPiece, Reply } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { type HarnessOptions, shape } from "../support/harness.js";
import { chatDelta, countOf, dataOf, statuses } from "./helpers.js";
import { overloadedBody, tuning } from "./retry-replies.js";

/**
 * A failed attempt is retried only while nothing of it was shown: an error event or a cut stream
 * before any content is retried; after text was shown the prompt fails, with no retry.
 */

/** An Anthropic stream that fails with an overloaded_error event, after `text` if given. */
function anthropicOverloadedStream(text: string | undefined): RawPiece[] {
  const event = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const pieces = [
    event("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-fake",
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
  ];
  if (text !== undefined) {
    pieces.push(
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
    );
  }
  pieces.push(event("error", overloadedBody));
  return pieces;
}

/** A Responses stream up to its first text delta (`text` given) or up to `response.created`. */
function responsesStreamStart(text: string | undefined): RawPiece[] {
  const event = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...data })}\n\n`;
  const pieces = [
    event("response.created", {
      response: {
        id: "resp_1",
        object: "response",
        created_at: 1,
        model: "gpt-5",
        status: "in_progress",
        output: [],
        usage: null,
      },
    }),
  ];
  if (text !== undefined) {
    const where = { item_id: "msg_1", output_index: 0 };
    pieces.push(
      event("response.output_item.added", {
        output_index: 0,
        item: {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "in_progress",
          content: [],
        },
      }),
      event("response.content_part.added", {
        ...where,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      }),
      event("response.output_text.delta", {
        ...where,
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    );
  }
  return pieces;
}

describe("retries only while nothing of the attempt was shown", () => {
  test("an overloaded_error event before any content is retried", async ({ openHarness }) => {
    const harness = await openHarness({ wire: "anthropic", tuning: tuning({}) });
    harness.server.enqueue({ raw: anthropicOverloadedStream(undefined) }, { text: "ok" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(dataOf(harness.events, "assistant.retry")).toEqual([
      expect.objectContaining({ attempt: 1, errorType: "overloaded" }),
    ]);
    expect(countOf(await harness.persisted(), "assistant.turn_start")).toBe(2);
  });

  test("an overloaded_error event after text was shown fails the prompt without a retry", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tuning: tuning({}) });
    harness.server.enqueue({ raw: anthropicOverloadedStream("Partial answer") }, { text: "ok" });
    const outcome = await harness.prompt("hi");
    expect(outcome).toMatchObject({ error: { errorType: "overloaded" } });
    expect(harness.server.requests).toHaveLength(1);
    expect(shape(await harness.persisted()).slice(2)).toEqual([
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        type: "assistant.message",
        data: {
          messageId: "message-1",
          content: "Partial answer",
          toolRequests: [],
          finishReason: "other",
          interrupted: true,
          error: "error" in outcome ? outcome.error : {},
        },
      },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "failed", errorType: "overloaded" },
      },
      { type: "session.error", data: "error" in outcome ? outcome.error : {} },
    ]);
    // The partial text was shown and is kept, marked interrupted: the next request is valid.
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200, 200]);
  });

  const cutStreams: Array<[string, HarnessOptions, RawPiece[], RawPiece[]]> = [
    [
      "openai-compatible",
      { model: "openai-compatible:fake-model" },
      [chatDelta({ role: "assistant", content: "" })],
      [chatDelta({ role: "assistant", content: "" }), chatDelta({ content: "Partial answer" })],
    ],
    [
      "openai-chat",
      { model: "openai-chat:gpt-4.1" },
      [chatDelta({ role: "assistant", content: "" })],
      [chatDelta({ role: "assistant", content: "" }), chatDelta({ content: "Partial answer" })],
    ],
    [
      "anthropic",
      { wire: "anthropic" },
      anthropicOverloadedStream(undefined).slice(0, 1),
      anthropicOverloadedStream("Partial answer").slice(0, 3),
    ],
    [
      "openai-responses",
      { wire: "openai-responses" },
      responsesStreamStart(undefined),
      responsesStreamStart("Partial answer"),
    ],
  ];

  test.for(cutStreams)(
    "%s: a stream that ends before its finish is retried when nothing was shown",
    async ([_name, options, beforeContent], { openHarness }) => {
      const harness = await openHarness({ ...options, tuning: tuning({}) });
      harness.server.enqueue({ raw: beforeContent }, { text: "ok" });
      expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
      expect(dataOf(harness.events, "assistant.retry")).toEqual([
        expect.objectContaining({ attempt: 1, errorType: "network" }),
      ]);
      expect(harness.server.requests).toHaveLength(2);
    },
  );

  test.for(cutStreams)(
    "%s: a stream that ends after text without its finish is an error, not end_turn",
    async ([_name, options, _beforeContent, afterContent], { openHarness }) => {
      const harness = await openHarness({ ...options, tuning: tuning({}) });
      harness.server.enqueue({ raw: afterContent }, { text: "ok" });
      const outcome = await harness.prompt("hi");
      expect(outcome).toMatchObject({ error: { errorType: "network" } });
      expect(harness.server.requests).toHaveLength(1);
      const persisted = await harness.persisted();
      expect(dataOf(persisted, "assistant.message")).toEqual([
        expect.objectContaining({ content: "Partial answer", interrupted: true }),
      ]);
      expect(dataOf(persisted, "assistant.turn_end")).toEqual([
        expect.objectContaining({ status: "failed", errorType: "network" }),
      ]);
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness)).toEqual([200, 200]);
    },
  );

  test("openai-compatible: a finished stream without [DONE] is still complete", async ({
    openHarness,
  }) => {
    // The finish_reason chunk is the end of the reply; [DONE] is only the transport's full stop.
    const harness = await openHarness({ tuning: tuning({}) });
    const reply: Reply = {
      raw: [chatDelta({ role: "assistant", content: "whole" }), chatDelta({}, "stop")],
    };
    harness.server.enqueue(reply);
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests).toHaveLength(1);
  });
});
