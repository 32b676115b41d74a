/**
 * Trial of round 3, session 25, item 1: a reply with no text, or only reasoning, printed nothing
 * and exited 0 on every wire. Here each wire's reply, as the fake model serves its bytes, ends the
 * prompt with `emptyAnswer` and one `session.warning` in its own words; what the faces make of
 * that warning is one path for every wire (test/cli/empty-answer.test.ts: `-p`'s stderr, exit 2
 * and JSON result; test/acp/empty-answer.test.ts: the editor's thought).
 */

import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

const WIRES = [
  "openai-compatible:fake-model",
  "openai-chat:gpt-4.1",
  "openai:gpt-5",
  "anthropic:claude-sonnet-4-5",
];

describe.for(WIRES)("an empty answer on %s", (modelId) => {
  test("an empty reply and a reasoning-only one each end the prompt with a warning", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ model: modelId });
    harness.server.enqueue({ text: "" }, { reasoning: "Thinking it over.", text: "" });
    const outcomes = [await harness.prompt("hi"), await harness.prompt("again")];
    const warnings = harness.events.flatMap((event) =>
      event.type === "session.warning" ? [event.data] : [],
    );
    const emptyAnswer = { stopReason: "end_turn", emptyAnswer: true };
    expect({ outcomes, warnings }).toEqual({
      outcomes: [emptyAnswer, emptyAnswer],
      warnings: [
        { warningType: "empty_answer", message: "the model returned an empty answer" },
        {
          warningType: "empty_answer",
          // OpenAI's own Chat Completions wire carries no reasoning (`reasoning_content` is other
          // servers'): the reply is empty there.
          message:
            modelId === "openai-chat:gpt-4.1"
              ? "the model returned an empty answer"
              : "the model returned only reasoning, no answer",
        },
      ],
    });
  });
});
