import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { CASES, EXPECTED, errorAfterText, KINDS } from "../support/wire-error-cases.js";

// One rule on every wire (README, "Choosing a model"): a model's error is typed by the error's own
// code or type, however it comes (an HTTP error status, a 200 answer whose body is an error, an
// error inside the event stream: Chat's error chunk, Anthropic's `error` event, the Responses
// API's `error` event and `response.failed`), and sent again only when it is transient. Each case
// is one prompt of a real session against the fake model's exact bytes, with one retry allowed;
// the requests the fake model received say whether it was sent again. The same typing reaches
// `-p --output-format json`'s `error.type` (test/cli/wire-error-kinds.test.ts, one case a wire).
// Trial 42 F1: the Responses API's events were typed by the event's own type ("error"), `server`.

const ONE_RETRY = { retry: { maxRetries: 1, initialDelayMs: 5, maxDelayMs: 5 } };

describe("a model's error on every wire", () => {
  test("is typed by its own code or type and sent again only when transient", async ({
    openHarness,
  }) => {
    const seen = [];
    const messages: Record<string, string | undefined> = {};
    for (const one of CASES) {
      const harness = await openHarness({ model: one.model, tuning: ONE_RETRY });
      harness.server.setResponder(() => one.reply);
      const outcome = await harness.prompt(one.prompt);
      const error = "error" in outcome ? outcome.error : undefined;
      const requests = harness.server.requests.length;
      seen.push({ wire: one.wire, way: one.way, kind: one.kind, type: error?.errorType, requests });
      messages[`${one.wire} ${one.way} ${one.kind}`] = error?.message;
      await harness.close();
    }
    expect(seen).toEqual(
      CASES.map(({ wire, way, kind }) => ({
        wire,
        way,
        kind,
        ...EXPECTED[kind],
        // Anthropic's transient server error here is its `overloaded_error`.
        ...(wire === "anthropic" && kind === "server" ? { type: "overloaded" } : {}),
      })),
    );
    // The words name the error's own code, not the event that carried it.
    expect([
      messages["responses error event quota"],
      messages["responses response.failed invalid"],
    ]).toEqual([
      "the server reported an error in its event stream (insufficient_quota): You exceeded your current plan.",
      "the server reported an error in its event stream (invalid_prompt): Invalid prompt.",
    ]);
  });
});

describe("a model's error after text was shown", () => {
  test("is typed by its own code the same (the AI SDK's plain object), and never sent again", async ({
    openHarness,
  }) => {
    const seen = [];
    for (const kind of KINDS) {
      const frames = errorAfterText(kind);
      const harness = await openHarness({ model: "openai:gpt-5", tuning: ONE_RETRY });
      harness.server.setResponder(() => ({ raw: frames }));
      const outcome = await harness.prompt(`after text ${kind}`);
      const error = "error" in outcome ? outcome.error : undefined;
      seen.push({ kind, type: error?.errorType, requests: harness.server.requests.length });
      await harness.close();
    }
    expect(seen).toEqual(KINDS.map((kind) => ({ kind, type: EXPECTED[kind].type, requests: 1 })));
  });
});
