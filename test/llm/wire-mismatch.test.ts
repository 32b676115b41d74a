/**
 * Trial 41 (F5): `openai:` pointed at a Chat Completions server was said as "the server reported
 * an error in its event stream", in the AI SDK's words (`openai.chat('model-id')`), and sent again
 * five times, though a stream of another wire's shape would come again. Each provider against
 * each other wire, in-process on the fake model's bytes: one request, what the server speaks, and
 * the prefix that speaks it. What `-p` makes of the error (its JSON result, exit 1) is one path
 * for every pair: test/cli/wire-mismatch.test.ts, end to end.
 */

import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { mismatchMessage, STREAMS } from "../support/wire-mismatch.js";

const CASES = [
  ["openai:gpt-4o-mini", "chat", "the OpenAI Responses API"],
  ["openai:gpt-4o-mini", "anthropic", "the OpenAI Responses API"],
  ["openai-compatible:gpt-4o-mini", "responses", "OpenAI Chat Completions"],
  ["openai-compatible:gpt-4o-mini", "anthropic", "OpenAI Chat Completions"],
  ["openai-chat:gpt-4o-mini", "responses", "OpenAI Chat Completions"],
  ["anthropic:gpt-4o-mini", "chat", "the Anthropic Messages API"],
  ["anthropic:gpt-4o-mini", "responses", "the Anthropic Messages API"],
] as const;

describe("a server speaking another wire than the model's prefix", () => {
  test.for(CASES)(
    "%s served %s: said with the prefix that speaks it, after one request, not retried",
    async ([modelId, served, speaks], { openHarness }) => {
      const harness = await openHarness({ model: modelId });
      // Every attempt gets the same stream, as such a server would send it again.
      harness.server.setResponder(() => ({ raw: [...STREAMS[served]] }));
      const outcome = await harness.prompt("hi");
      expect({ outcome, requests: harness.server.requests.length }).toEqual({
        outcome: {
          error: {
            errorType: "malformed_response",
            message: mismatchMessage(modelId, served, speaks),
          },
        },
        requests: 1,
      });
    },
  );
});
