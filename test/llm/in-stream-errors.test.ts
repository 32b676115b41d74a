import { describe, expect } from "vitest";
import type { RawPiece } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import type { HarnessOptions } from "../support/harness.js";
import { chatChunk, chatDelta, dataOf, statuses } from "./helpers.js";

/**
 * Case 18 across wires: a server error the provider reports inside its event stream (HTTP 200) is
 * retried as its HTTP status would be while nothing of the attempt was shown, on every wire
 * (Anthropic's `api_error` event, an OpenAI Chat or compatible chunk's `error` object, the
 * Responses API's `error` event and `response.failed`); after text was shown it fails the prompt
 * (case 17: never an `end_turn`) and is not retried. The fake server sends the exact bytes.
 */

const MESSAGE = "The server had an error while processing your request. Sorry about that!";

/** Retries fast enough for tests; the delays the events report are computed, not measured. */
const tuning = { retry: { initialDelayMs: 5, maxDelayMs: 50, maxRetries: 5 } };

const chatError = chatChunk({
  error: { message: MESSAGE, type: "server_error", param: null, code: null },
});

function anthropicEvent(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const anthropicStart = anthropicEvent("message_start", {
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
});

const anthropicText = [
  anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  anthropicEvent("content_block_delta", {
    index: 0,
    delta: { type: "text_delta", text: "Partial answer" },
  }),
];

const anthropicError = anthropicEvent("error", { error: { type: "api_error", message: MESSAGE } });

let sequence = 0;
function responsesEvent(type: string, data: object): string {
  sequence += 1;
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`;
}

const responseObject = {
  id: "resp_1",
  object: "response",
  created_at: 1,
  model: "gpt-5",
  status: "in_progress",
  output: [],
  usage: null,
};

const responsesStart = () => [
  responsesEvent("response.created", { response: responseObject }),
  responsesEvent("response.in_progress", { response: responseObject }),
];

const responsesText = () => {
  const where = { item_id: "msg_1", output_index: 0 };
  return [
    responsesEvent("response.output_item.added", {
      output_index: 0,
      item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
    }),
    responsesEvent("response.content_part.added", {
      ...where,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    }),
    responsesEvent("response.output_text.delta", {
      ...where,
      content_index: 0,
      delta: "Partial answer",
      logprobs: [],
    }),
  ];
};

const responsesError = () =>
  responsesEvent("error", { code: "server_error", message: MESSAGE, param: null });

const responsesFailed = () =>
  responsesEvent("response.failed", {
    response: {
      ...responseObject,
      status: "failed",
      error: { code: "server_error", message: MESSAGE },
      incomplete_details: null,
    },
  });

/** A wire, its harness, and its stream up to the error: before any content, and after text. */
type Stream = [string, HarnessOptions, () => RawPiece[], () => RawPiece[]];

const streams: Stream[] = [
  [
    "anthropic api_error event",
    { wire: "anthropic" },
    () => [anthropicStart, anthropicError],
    () => [anthropicStart, ...anthropicText, anthropicError],
  ],
  [
    "openai-compatible error chunk",
    { model: "openai-compatible:fake-model" },
    () => [chatDelta({ role: "assistant", content: "" }), chatError],
    () => [chatDelta({ role: "assistant", content: "Partial answer" }), chatError],
  ],
  [
    "openai-chat error chunk",
    { model: "openai-chat:gpt-4.1" },
    () => [chatDelta({ role: "assistant", content: "" }), chatError],
    () => [chatDelta({ role: "assistant", content: "Partial answer" }), chatError],
  ],
  [
    "openai-responses error event",
    { wire: "openai-responses" },
    () => [...responsesStart(), responsesError()],
    () => [...responsesStart(), ...responsesText(), responsesError()],
  ],
  [
    "openai-responses response.failed",
    { wire: "openai-responses" },
    () => [...responsesStart(), responsesFailed()],
    () => [...responsesStart(), ...responsesText(), responsesFailed()],
  ],
];

describe("an in-stream server error is one rule across wires", () => {
  test.for(streams)(
    "%s before any content is retried",
    async ([_name, options, beforeContent], { openHarness }) => {
      const harness = await openHarness({ ...options, tuning });
      harness.server.enqueue({ raw: beforeContent() }, { text: "ok" });
      expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
      expect(dataOf(harness.events, "assistant.retry")).toEqual([
        expect.objectContaining({ attempt: 1, errorType: "server" }),
      ]);
      expect(dataOf(harness.events, "assistant.turn_end")).toEqual([
        expect.objectContaining({ status: "failed", errorType: "server" }),
        expect.objectContaining({ status: "completed" }),
      ]);
      expect(statuses(harness)).toEqual([200, 200]);
    },
  );

  test.for(streams)(
    "%s after text fails the prompt, not retried and never end_turn",
    async ([_name, options, _beforeContent, afterContent], { openHarness }) => {
      const harness = await openHarness({ ...options, tuning });
      harness.server.enqueue({ raw: afterContent() }, { text: "ok" });
      const outcome = await harness.prompt("hi");
      expect(outcome).toMatchObject({ error: { errorType: "server" } });
      expect(harness.server.requests).toHaveLength(1);
      expect(dataOf(harness.events, "assistant.message")).toEqual([
        expect.objectContaining({ content: "Partial answer", interrupted: true }),
      ]);
      expect(dataOf(harness.events, "assistant.turn_end")).toEqual([
        expect.objectContaining({ status: "failed", errorType: "server" }),
      ]);
    },
  );
});
