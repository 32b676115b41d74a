import { expect } from "vitest";
import { test } from "../support/fixtures.js";
import { failedResponse, responsesTextStart, sse } from "../support/wire-error-cases.js";

// The Responses API's `error` and `response.failed` events whose error names no code or type
// (`code: null`, `type: null`) keep the server's message (round 3, session 43, N4), also when the
// event is out of the AI SDK's schema (no `sequence_number`, the error nested under `error`):
// the server said why it failed, which a "stream event the wire does not have" hid.

const FAILED_RESPONSE = failedResponse({ code: null, message: "Failed: the server said why." });

test("an error event or response.failed with no code keeps the server's message", async ({
  openHarness,
}) => {
  const ways: Record<string, string[]> = {
    "response.failed": [
      sse("response.failed", {
        type: "response.failed",
        sequence_number: 1,
        response: FAILED_RESPONSE,
      }),
    ],
    "response.failed after text": [
      ...responsesTextStart(),
      sse("response.failed", {
        type: "response.failed",
        sequence_number: 4,
        response: FAILED_RESPONSE,
      }),
    ],
    "response.failed, no sequence_number": [
      sse("response.failed", { type: "response.failed", response: FAILED_RESPONSE }),
    ],
    error: [
      sse("error", {
        type: "error",
        sequence_number: 1,
        code: null,
        message: "Failed: the server said why.",
        param: null,
      }),
    ],
    "error, no sequence_number": [
      sse("error", {
        type: "error",
        code: null,
        message: "Failed: the server said why.",
        param: null,
      }),
    ],
    "error, nested, type and code null": [
      sse("error", {
        type: "error",
        sequence_number: 1,
        error: { type: null, code: null, message: "Failed: the server said why.", param: null },
      }),
    ],
  };
  const seen: Record<string, unknown> = {};
  for (const [way, raw] of Object.entries(ways)) {
    const harness = await openHarness({
      model: "openai:gpt-5",
      tuning: { retry: { maxRetries: 0 } },
    });
    harness.server.setResponder(() => ({ raw }));
    const outcome = await harness.prompt(way);
    seen[way] = "error" in outcome ? outcome.error : outcome;
    await harness.close();
  }
  const said = {
    errorType: "invalid_request",
    message: "the server reported an error in its event stream: Failed: the server said why.",
  };
  expect(seen).toEqual(Object.fromEntries(Object.keys(ways).map((way) => [way, said])));
});
