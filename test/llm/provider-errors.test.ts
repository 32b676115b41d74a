import { describe, expect } from "vitest";
import type { PromptOutcome } from "../../src/agent/loop.js";
import type { SessionEvent } from "../../src/events/events.js";
import { bashTool } from "../../src/tools/bash.js";
import { FAILED_AFTER_RETRIES, TOOL_TURN } from "../support/event-sequences.js";
import type { ErrorReply } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { type Harness, shape, types } from "../support/harness.js";
import { normaliseMessages } from "../support/normalise-request.js";
import { countOf, dataOf, statuses } from "./helpers.js";

/** Case 17 says any wire works; the three error parsers differ, so each gets its run. */
const MODELS = [
  ["openai-compatible", { wire: "openai-chat", model: "openai-compatible:fake-model" }],
  ["openai-chat", { wire: "openai-chat", model: "openai-chat:gpt-4.1" }],
  ["anthropic", { wire: "anthropic", model: "anthropic:claude-fake" }],
] as const;

const FAST = { retry: { initialDelayMs: 1, maxDelayMs: 5, maxRetries: 2 } };

function errorBody(wire: "openai-chat" | "anthropic", type: string, message: string): object {
  return wire === "anthropic"
    ? { type: "error", error: { type, message } }
    : { error: { message, type, code: null } };
}

/**
 * Events a failed prompt must never produce: visible text or a stored assistant message. Each
 * request is still a turn, and every one of them ended failed.
 */
function assertNothingShownOrStored(events: readonly SessionEvent[], requests: number): void {
  expect(countOf(events, "assistant.message_delta")).toBe(0);
  expect(countOf(events, "assistant.message")).toBe(0);
  expect(countOf(events, "assistant.turn_start")).toBe(requests);
  expect(dataOf(events, "assistant.turn_end").map((end) => end.status)).toEqual(
    Array.from({ length: requests }, () => "failed"),
  );
}

/**
 * Prompts "hi" on `harness` answered HTTP `status` with the wire's error body of `type` and
 * `message` (then "fine", for the next prompt): the outcome is an `errorType` error with the
 * status and the provider's message, after one request (no retry), with nothing shown or stored
 * but the failed turn.
 */
async function failsAtOnce(
  harness: Harness,
  wire: "openai-chat" | "anthropic",
  {
    status,
    type,
    message,
    errorType,
  }: Record<"type" | "message" | "errorType", string> & {
    status: number;
  },
): Promise<PromptOutcome> {
  harness.server.enqueue({ status, body: errorBody(wire, type, message) }, { text: "fine" });
  const outcome = await harness.prompt("hi");
  expect(outcome).toEqual({
    error: {
      errorType,
      statusCode: status,
      message: expect.stringMatching(`${status}.*${message}`),
    },
  });
  expect(harness.server.requests).toHaveLength(1);
  assertNothingShownOrStored(harness.events, harness.server.requests.length);
  return outcome;
}

describe("case 17: a failed model call is an error outcome, never end_turn", () => {
  describe.each(MODELS)("%s", (_name, { wire, model }) => {
    test("test 1: 401 is an authentication error, not retried; the next prompt works", async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire, model, tuning: FAST });
      const outcome = await failsAtOnce(harness, wire, {
        status: 401,
        type: "authentication_error",
        message: "invalid api key",
        errorType: "authentication",
      });
      expect(shape(await harness.persisted()).slice(1)).toEqual([
        { type: "user.message", data: { content: "hi", source: "user" } },
        { type: "assistant.turn_start", data: { turnId: "turn-1" } },
        {
          type: "assistant.turn_end",
          data: { turnId: "turn-1", status: "failed", errorType: "authentication" },
        },
        { type: "session.error", data: "error" in outcome ? outcome.error : {} },
      ]);
      expect(harness.events.at(-1)).toMatchObject({ type: "session.idle", data: {} });

      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness)).toEqual([401, 200]);
      // The failed request left nothing behind but its user message: no empty assistant turn.
      // (Anthropic's SDK merges the two user messages into one user turn.)
      const history = normaliseMessages(wire, harness.server.requests[1]?.body ?? null);
      expect(history.filter((message) => message.role !== "system")).toEqual(
        wire === "anthropic"
          ? [{ role: "user", content: "hiagain" }]
          : [
              { role: "user", content: "hi" },
              { role: "user", content: "again" },
            ],
      );
      const persisted = await harness.persisted();
      expect(countOf(persisted, "assistant.turn_start")).toBe(2);
      expect(dataOf(persisted, "assistant.message").map((message) => message.content)).toEqual([
        "fine",
      ]);
    });

    test("test 2: 400 is an invalid request with the provider's message, not retried", async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire, model, tuning: FAST });
      const outcome = await failsAtOnce(harness, wire, {
        status: 400,
        type: "invalid_request_error",
        message: "model 'x' does not exist",
        errorType: "invalid_request",
      });
      expect(dataOf(await harness.persisted(), "session.error")).toEqual([
        "error" in outcome ? outcome.error : {},
      ]);
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness)).toEqual([400, 200]);
    });

    test("test 3: 500 every time fails after maxRetries retries as a server error", async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire, model, tuning: FAST });
      harness.server.setResponder(() => ({
        status: 500,
        body: errorBody(wire, "api_error", "boom"),
      }));
      const outcome = await harness.prompt("hi");
      expect(outcome).toEqual({
        error: {
          errorType: "server",
          statusCode: 500,
          message: expect.stringMatching(/500.*boom/),
        },
      });
      expect(statuses(harness)).toEqual([500, 500, 500]);
      assertNothingShownOrStored(harness.events, harness.server.requests.length);
      const persisted = await harness.persisted();
      expect(types(persisted).slice(1)).toEqual(["user.message", ...FAILED_AFTER_RETRIES]);
      expect(dataOf(persisted, "assistant.retry")).toEqual([
        expect.objectContaining({ attempt: 1, statusCode: 500, errorType: "server" }),
        expect.objectContaining({ attempt: 2, statusCode: 500, errorType: "server" }),
      ]);
      expect(dataOf(persisted, "session.error")).toEqual([
        { errorType: "server", statusCode: 500, message: expect.stringContaining("boom") },
      ]);

      harness.server.setResponder(undefined);
      harness.server.enqueue({ text: "fine" });
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness).at(-1)).toBe(200);
    });
  });

  test.for(["openai-chat", "anthropic"] as const)(
    "test 4 (%s): a failure after tool work keeps the call and its result; the error is logged after them",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire, tools: [bashTool], tuning: FAST });
      harness.server.enqueue({
        toolCalls: [{ id: "call_A", name: "bash", arguments: '{"command":"echo a"}' }],
      });
      const failing: ErrorReply = { status: 500, body: errorBody(wire, "api_error", "boom") };
      harness.server.enqueue(failing, failing, failing);
      const outcome = await harness.prompt("run echo a");
      expect(outcome).toMatchObject({ error: { errorType: "server", statusCode: 500 } });
      expect(types(await harness.persisted()).slice(1)).toEqual([
        "user.message",
        ...TOOL_TURN,
        ...FAILED_AFTER_RETRIES,
      ]);
      const [result] = dataOf(harness.events, "tool.execution_complete");
      expect(result).toMatchObject({ toolCallId: "call_A", success: true });
      expect(result?.result.content).toContain("a\n");

      harness.server.enqueue({ text: "fine" });
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness)).toEqual([200, 500, 500, 500, 200]);
      const history = normaliseMessages(wire, harness.server.requests[4]?.body ?? null);
      expect(history.filter((message) => message.role !== "system")).toEqual([
        { role: "user", content: "run echo a" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_A", name: "bash", arguments: '{"command":"echo a"}' }],
        },
        { role: "tool", content: result?.result.content, toolCallId: "call_A" },
        { role: "user", content: "again" },
      ]);
      // Five requests, five turns: two got a reply, three failed (two retried, one the error).
      expect(countOf(await harness.persisted(), "assistant.turn_start")).toBe(5);
    },
  );

  test("the error message is bounded and has keys, bearer tokens and query credentials redacted", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: FAST });
    const key = "sk-live0123456789abcdefghij";
    const text = `Incorrect API key provided: ${key}. Sent header Authorization: Bearer tok_0123456789abcdef to https://gateway.example/v1?key=AIzaSecret123 ${"x".repeat(3_000)}`;
    harness.server.enqueue({ status: 401, body: { error: { message: text } } });
    const outcome = await harness.prompt("hi");
    if (!("error" in outcome)) {
      throw new Error("expected an error outcome");
    }
    const { message } = outcome.error;
    expect(message).toMatch(/^HTTP 401: Incorrect API key provided: sk-live01…\[redacted\]/);
    expect(message).not.toContain(key);
    expect(message).not.toContain("tok_0123456789abcdef");
    expect(message).not.toContain("AIzaSecret123");
    expect(message).toContain("Bearer [redacted]");
    expect(message).toContain("?key=[redacted]");
    expect(message.length).toBeLessThan(600);
    const [logged] = dataOf(await harness.persisted(), "session.error");
    expect(logged?.message).toBe(message);
  });

  test("an HTML error page is reported with its status, not as a model reply", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: FAST });
    const page = `<html><body><h1>502 Bad Gateway</h1>${"<p>padding</p>".repeat(500)}</body></html>`;
    harness.server.setResponder(() => ({ status: 502, body: page }));
    const outcome = await harness.prompt("hi");
    expect(outcome).toMatchObject({ error: { errorType: "server", statusCode: 502 } });
    if ("error" in outcome) {
      expect(outcome.error.message.length).toBeLessThan(600);
    }
    assertNothingShownOrStored(harness.events, harness.server.requests.length);
  });
});
