import { readFile, writeFile } from "node:fs/promises";
import { describe, expect } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { eventsPath } from "../../src/session/paths.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";
import { normaliseMessages } from "../support/normalise-request.js";
import { getTimeTool } from "../support/test-tools.js";
import { validateRequest } from "../support/validate-history.js";

// Issue 11: every tool call of a session has an id unique in the whole session, the same for the
// client, the model and the log, whatever ids the provider sends (reused, repeated, empty).

const WIRES: Wire[] = ["openai-chat", "openai-responses", "anthropic"];

const FRESH_ID = /^call_[0-9a-f]{24}$/;

function timeCall(id: string, zone: string) {
  return { id, name: "get_time", arguments: JSON.stringify({ zone }) };
}

/** The ids of every call in the log, as the assistant messages, starts and results name them. */
function idsInLog(events: readonly SessionEvent[]) {
  const requested: string[] = [];
  const started: string[] = [];
  const completed: string[] = [];
  for (const event of events) {
    if (event.type === "assistant.message") {
      requested.push(...event.data.toolRequests.map((call) => call.toolCallId));
    } else if (event.type === "tool.execution_start") {
      started.push(event.data.toolCallId);
    } else if (event.type === "tool.execution_complete") {
      completed.push(event.data.toolCallId);
    }
  }
  return { requested, started, completed };
}

/** Every call id and result id the model was sent in request `index`, in order. */
function idsSent(
  harness: Harness,
  wire: Wire,
  index: number,
): { calls: string[]; results: string[] } {
  const body = harness.server.requests[index]?.body ?? null;
  const calls: string[] = [];
  const results: string[] = [];
  for (const message of normaliseMessages(wire, body)) {
    calls.push(...(message.toolCalls ?? []).map((call) => call.id));
    if (message.role === "tool" && message.toolCallId !== undefined) {
      results.push(message.toolCallId);
    }
  }
  return { calls, results };
}

function expectAllRequestsValid(harness: Harness, wire: Wire): void {
  for (const request of harness.server.requests) {
    expect(
      validateRequest(wire, request.body, { streamedReasoning: new Map() })?.message,
    ).toBeUndefined();
  }
  expect(harness.server.requests.map((request) => request.status)).toEqual(
    harness.server.requests.map(() => 200),
  );
}

describe.each(WIRES)("%s", (wire) => {
  test("call_0 on every turn: later calls get fresh ids, the same in the log and the requests", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire, tools: [getTimeTool] });
    harness.server.enqueue(
      { toolCalls: [timeCall("call_0", "UTC")] },
      { toolCalls: [timeCall("call_0", "CET")] },
      { text: "done" },
    );
    expect(await harness.prompt("times")).toEqual({ stopReason: "end_turn" });
    const { requested, started, completed } = idsInLog(await harness.persisted());
    expect(requested).toHaveLength(2);
    expect(requested[0]).toBe("call_0");
    expect(requested[1]).toMatch(FRESH_ID);
    expect(started).toEqual(requested);
    expect(completed).toEqual(requested);
    // What the client saw live is what the log holds.
    expect(idsInLog(harness.events)).toEqual({ requested, started, completed });
    expect(idsSent(harness, wire, 2)).toEqual({ calls: requested, results: requested });
    expectAllRequestsValid(harness, wire);
  });

  test("one id twice in one reply: two calls, two ids, each result paired with its call", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire, tools: [getTimeTool] });
    harness.server.enqueue(
      { toolCalls: [timeCall("call_0", "UTC"), timeCall("call_0", "CET")] },
      { text: "done" },
    );
    expect(await harness.prompt("times")).toEqual({ stopReason: "end_turn" });
    const persisted = await harness.persisted();
    const { requested, completed } = idsInLog(persisted);
    expect(requested).toHaveLength(2);
    expect(new Set(requested).size).toBe(2);
    expect([...completed].sort()).toEqual([...requested].sort());
    const zones = persisted.flatMap((event) =>
      event.type === "tool.execution_start" ? [[event.data.toolCallId, event.data.arguments]] : [],
    );
    expect(zones).toEqual([
      [requested[0], { zone: "UTC" }],
      [requested[1], { zone: "CET" }],
    ]);
    expect(idsSent(harness, wire, 1)).toEqual({ calls: requested, results: requested });
    expectAllRequestsValid(harness, wire);
  });

  test("an empty id gets a fresh one", async ({ openHarness }) => {
    const harness = await openHarness({ wire, tools: [getTimeTool] });
    harness.server.enqueue({ toolCalls: [timeCall("", "UTC")] }, { text: "done" });
    expect(await harness.prompt("time")).toEqual({ stopReason: "end_turn" });
    const { requested, completed } = idsInLog(await harness.persisted());
    expect(requested).toHaveLength(1);
    expect(requested[0]).not.toBe("");
    expect(completed).toEqual(requested);
    expect(idsSent(harness, wire, 1)).toEqual({ calls: requested, results: requested });
    expectAllRequestsValid(harness, wire);
  });

  test("a session written with duplicate ids loads and sends a valid request", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire, tools: [getTimeTool] });
    harness.server.enqueue(
      { toolCalls: [timeCall("call_0", "UTC")] },
      { toolCalls: [timeCall("call_0", "CET"), timeCall("call_0", "EST")] },
      { text: "done" },
    );
    expect(await harness.prompt("times")).toEqual({ stopReason: "end_turn" });
    // Rewrite the log as a version that kept the provider's ids would have written it.
    const { requested } = idsInLog(await harness.persisted());
    const path = eventsPath(harness.home, harness.session.id);
    let text = await readFile(path, "utf8");
    for (const id of requested) {
      text = text.replaceAll(id, "call_0");
    }
    await writeFile(path, text);
    await harness.reopen();
    expect(idsInLog(await harness.persisted()).requested).toEqual(["call_0", "call_0", "call_0"]);
    harness.server.enqueue({ toolCalls: [timeCall("call_0", "PST")] }, { text: "again" });
    expect(await harness.prompt("once more")).toEqual({ stopReason: "end_turn" });
    const sent = idsSent(harness, wire, 4);
    expect(sent.calls).toHaveLength(4);
    expect(new Set(sent.calls).size).toBe(4);
    expect(sent.results).toEqual(sent.calls);
    expectAllRequestsValid(harness, wire);
  });
});
