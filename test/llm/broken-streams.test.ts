import { describe, expect } from "vitest";
import type { SemanticReply, SseEvent, Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import type { Harness, HarnessOptions } from "../support/harness.js";
import { renderReply } from "../support/render-reply.js";
import { getTimeTool } from "../support/test-tools.js";
import { validateRequest } from "../support/validate-history.js";
import { countOf, dataOf } from "./helpers.js";

// Issue 11: a stream that breaks after the reply started (a TCP reset, or a clean end of the body
// without the wire's terminator) is a network failure on every wire. Nothing shown yet: retried
// transparently, and a half tool call is never executed. Text shown: recorded as an interrupted
// assistant message and the prompt answers the error.

const MODELS: Array<[string, Wire, HarnessOptions]> = [
  ["openai-compatible", "openai-chat", { model: "openai-compatible:fake-model" }],
  ["openai-chat", "openai-chat", { model: "openai-chat:gpt-4.1" }],
  ["openai-responses", "openai-responses", { wire: "openai-responses" }],
  ["anthropic", "anthropic", { wire: "anthropic" }],
];

const BREAKS = ["end", "reset"] as const;

const textReply: SemanticReply = { text: ["Hel", "lo world"] };
const toolReply: SemanticReply = {
  toolCalls: [
    { id: "call_A", name: "get_time", arguments: ['{"zone":', '"UTC"}'] },
    { id: "call_B", name: "get_time", arguments: ['{"zone":', '"CET"}'] },
  ],
};
const textThenToolReply: SemanticReply = {
  text: "Let me check.",
  toolCalls: [{ id: "call_C", name: "get_time", arguments: ['{"zone":', '"UTC"}'] }],
};

/** Index of the first event `where` holds for; throws so a wrong cut point fails loudly. */
function indexOf(events: SseEvent[], where: (event: SseEvent) => boolean): number {
  const index = events.findIndex(where);
  if (index < 0) {
    throw new Error("cut point not found in the rendered reply");
  }
  return index;
}

/** The wire's terminator event (or, on OpenAI Chat, the finish chunk the SDK ends the reply on). */
function isTerminator(wire: Wire, event: SseEvent): boolean {
  switch (wire) {
    case "openai-chat":
      return /"finish_reason":"[a-z_]+"/.test(event.data);
    case "openai-responses":
      return event.event === "response.completed";
    case "anthropic":
      return event.event === "message_stop";
  }
}

type CutPoint = (wire: Wire, events: SseEvent[]) => number;

/** How many events are sent before the break, per named cut point. */
const CUTS: Record<string, CutPoint> = {
  "after the role chunk": () => 1,
  "mid-text": (_wire, events) => indexOf(events, (event) => event.data.includes('"Hel"')) + 1,
  "mid-tool-arguments": (_wire, events) =>
    indexOf(events, (event) => event.data.includes('"{\\"zone\\":"')) + 1,
  "between two tool calls": (_wire, events) =>
    indexOf(events, (event) => event.data.includes("call_B")),
  "after the last content chunk, before the terminator": (wire, events) =>
    indexOf(events, (event) => isTerminator(wire, event)),
};

function broken(
  wire: Wire,
  reply: SemanticReply,
  cut: string,
  breakBy: "end" | "reset",
): SemanticReply {
  const events = renderReply(wire, reply, { sequence: 1, model: "m", createdAt: 1 });
  const point = CUTS[cut];
  if (point === undefined) {
    throw new Error(`unknown cut point ${cut}`);
  }
  return { ...reply, breakAfterEvents: point(wire, events), breakBy };
}

/** Fails the test when a request the agent sent would be rejected by the real provider. */
function expectValidRequests(harness: Harness, wire: Wire): void {
  for (const request of harness.server.requests) {
    const failure = validateRequest(wire, request.body, { streamedReasoning: new Map() });
    expect(failure?.message).toBeUndefined();
  }
}

describe.each(MODELS)("%s: a break before anything was shown", (_name, wire, options) => {
  const silentCuts: Array<[string, string, SemanticReply]> = [
    ["after the role chunk", "text", textReply],
    ["after the role chunk", "two tool calls", toolReply],
    ["mid-tool-arguments", "two tool calls", toolReply],
    ["between two tool calls", "two tool calls", toolReply],
    ["after the last content chunk, before the terminator", "two tool calls", toolReply],
  ];
  test.for(
    silentCuts.flatMap(([cut, label, reply]) =>
      BREAKS.map((breakBy) => [cut, label, breakBy, reply] as const),
    ),
  )(
    "%s of %s, by %s: retried, the half call never runs",
    async ([cut, _label, breakBy, reply], { openHarness }) => {
      const harness = await openHarness({ ...options, tools: [getTimeTool] });
      harness.server.enqueue(broken(wire, reply, cut, breakBy), { text: "ok" });
      expect(await harness.prompt("what time is it")).toEqual({ stopReason: "end_turn" });
      expect(dataOf(harness.events, "assistant.retry")).toEqual([
        expect.objectContaining({ attempt: 1, errorType: "network" }),
      ]);
      const persisted = await harness.persisted();
      expect(countOf(persisted, "tool.execution_start")).toBe(0);
      expect(dataOf(persisted, "assistant.message")).toEqual([
        expect.objectContaining({ content: "ok", toolRequests: [] }),
      ]);
      expect(harness.server.requests).toHaveLength(2);
      expectValidRequests(harness, wire);
    },
  );
});

describe.each(MODELS)("%s: a break after text was shown", (_name, wire, options) => {
  const shownCuts: Array<[string, string, SemanticReply, string]> = [
    ["mid-text", "text", textReply, "Hel"],
    ["after the last content chunk, before the terminator", "text", textReply, "Hello world"],
    ["mid-tool-arguments", "text and a tool call", textThenToolReply, "Let me check."],
    [
      "after the last content chunk, before the terminator",
      "text and a tool call",
      textThenToolReply,
      "Let me check.",
    ],
  ];
  test.for(
    shownCuts.flatMap(([cut, label, reply, shown]) =>
      BREAKS.map((breakBy) => [cut, label, breakBy, reply, shown] as const),
    ),
  )(
    "%s of %s, by %s: an interrupted message and an error",
    async ([cut, _label, breakBy, reply, shown], { openHarness }) => {
      const harness = await openHarness({ ...options, tools: [getTimeTool] });
      harness.server.enqueue(broken(wire, reply, cut, breakBy), { text: "fine" });
      const outcome = await harness.prompt("what time is it");
      expect(outcome).toMatchObject({ error: { errorType: "network" } });
      expect(harness.server.requests).toHaveLength(1);
      const persisted = await harness.persisted();
      expect(countOf(persisted, "tool.execution_start")).toBe(0);
      const error = "error" in outcome ? outcome.error : undefined;
      expect(persisted.slice(2).map((event) => [event.type, event.data])).toEqual([
        ["assistant.turn_start", expect.anything()],
        [
          "assistant.message",
          expect.objectContaining({
            content: shown,
            toolRequests: [],
            interrupted: true,
            error: { errorType: "network", message: error?.message },
          }),
        ],
        ["assistant.turn_end", expect.objectContaining({ status: "failed", errorType: "network" })],
        ["session.error", error],
      ]);
      // The next prompt sends what the user saw as valid history, and works.
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(JSON.stringify(harness.server.requests[1]?.body)).toContain(shown);
      expectValidRequests(harness, wire);
    },
  );
});
