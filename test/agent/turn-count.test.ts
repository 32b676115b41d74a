import { readFile } from "node:fs/promises";
import { describe, type ExpectStatic, expect } from "vitest";
import type { PromptOutcome } from "../../src/agent/loop.js";
import type { SessionEvent } from "../../src/events/events.js";
import { eventsPath } from "../../src/session/paths.js";
import { bashTool } from "../../src/tools/bash.js";
import { eventually, waitForEvent } from "../llm/helpers.js";
import { test } from "../support/fixtures.js";
import type { Harness, HarnessOptions } from "../support/harness.js";
import { getTimeTool, readFileTool } from "../support/test-tools.js";

/**
 * DESIGN.md, "Principles": one model request = one `assistant.turn_start`/`assistant.turn_end`
 * pair, failed and cancelled attempts included. Checked on every path of the loop below: the
 * `grep -c` of events.jsonl equals the fake server's request count, and every turn_start has
 * exactly one turn_end, before the next turn starts.
 */

const FAST = { retry: { initialDelayMs: 1, maxDelayMs: 5, maxRetries: 2 }, idleTimeoutMs: 200 };

interface Path {
  options: HarnessOptions;
  /** Scripts the server and runs the prompt(s); returns the outcome of the last one. */
  run(harness: Harness): Promise<PromptOutcome>;
  outcome: PromptOutcome | { error: object };
  /** How the turns ended, in order. */
  statuses: string[];
}

const text = (value: string) => ({ text: value });
const call = (id: string, name: string, args = "{}") => ({ id, name, arguments: args });

/** Cancels the prompt once `ready` holds for the events so far. */
async function cancelWhen(
  target: Harness,
  ready: (event: SessionEvent) => boolean,
  after?: () => Promise<unknown>,
): Promise<PromptOutcome> {
  const controller = new AbortController();
  const reached = waitForEvent(target, ready);
  const running = target.prompt("go", controller.signal);
  await reached;
  await after?.();
  controller.abort();
  return running;
}

const PATHS: Record<string, Path> = {
  success: {
    options: {},
    run: async (target) => {
      target.server.enqueue(text("hello"));
      return target.prompt("hi");
    },
    outcome: { stopReason: "end_turn" },
    statuses: ["completed"],
  },
  "tool turns": {
    options: { tools: [getTimeTool] },
    run: async (target) => {
      target.server.enqueue(
        { toolCalls: [call("t1", "get_time")] },
        { toolCalls: [call("t2", "get_time")] },
        text("noon"),
      );
      return target.prompt("time?");
    },
    outcome: { stopReason: "end_turn" },
    statuses: ["completed", "completed", "completed"],
  },
  "parallel tools": {
    options: { tools: [getTimeTool, readFileTool] },
    run: async (target) => {
      target.server.enqueue(
        {
          toolCalls: [call("t1", "get_time"), call("t2", "read_file", '{"path":"missing.txt"}')],
        },
        text("done"),
      );
      return target.prompt("both");
    },
    outcome: { stopReason: "end_turn" },
    statuses: ["completed", "completed"],
  },
  "429 + retry": {
    options: { tuning: FAST },
    run: async (target) => {
      target.server.enqueue({ status: 429, body: { error: { message: "slow down" } } }, text("ok"));
      return target.prompt("hi");
    },
    outcome: { stopReason: "end_turn" },
    statuses: ["failed", "completed"],
  },
  "500 after retries": {
    options: { tuning: FAST },
    run: async (target) => {
      target.server.setResponder(() => ({ status: 500, body: { error: { message: "boom" } } }));
      return target.prompt("hi");
    },
    outcome: { error: expect.objectContaining({ errorType: "server" }) },
    statuses: ["failed", "failed", "failed"],
  },
  "cancel before the first token": {
    options: {},
    run: async (target) => {
      target.server.enqueue({ raw: [{ hold: true }] });
      return cancelWhen(
        target,
        (event) => event.type === "assistant.turn_start",
        () => eventually(() => target.server.requests.length === 1),
      );
    },
    outcome: { stopReason: "cancelled" },
    statuses: ["cancelled"],
  },
  "cancel mid-stream": {
    options: {},
    run: async (target) => {
      target.server.enqueue({ text: ["one ", "two ", "three ", "four"], stallAfterEvents: 5 });
      return cancelWhen(target, (event) => event.type === "assistant.message_delta");
    },
    outcome: { stopReason: "cancelled" },
    statuses: ["cancelled"],
  },
  "cancel mid-tool": {
    options: { tools: [bashTool] },
    run: async (target) => {
      target.server.enqueue({ toolCalls: [call("b1", "bash", '{"command":"sleep 30"}')] });
      return cancelWhen(target, (event) => event.type === "tool.execution_running");
    },
    outcome: { stopReason: "cancelled" },
    statuses: ["cancelled"],
  },
  "autopilot nudges and cap": {
    options: { autopilot: true, maxAutopilotContinues: 2 },
    run: async (target) => {
      target.server.enqueue(text("working"), text("still working"), text("nearly"));
      return target.prompt("do it");
    },
    outcome: { stopReason: "end_turn", autopilotStopped: "cap_reached" },
    statuses: ["completed", "completed", "completed"],
  },
  "autopilot task_complete": {
    options: { autopilot: true },
    run: async (target) => {
      target.server.enqueue(text("working"), {
        toolCalls: [call("c1", "task_complete", '{"summary":"done"}')],
      });
      return target.prompt("do it");
    },
    outcome: { stopReason: "end_turn" },
    statuses: ["completed", "completed"],
  },
  "max turns": {
    options: { tools: [getTimeTool], maxTurns: 2 },
    run: async (target) => {
      target.server.setResponder(() => ({ toolCalls: [call(`t${Math.random()}`, "get_time")] }));
      return target.prompt("loop");
    },
    outcome: { stopReason: "max_turn_requests" },
    statuses: ["completed", "completed"],
  },
};

/**
 * A reply that stalls until the idle limit, then the retry's answer. Its 1.5 s is a wait no gate
 * can shorten (the limit is what is tested), so the three wires' stalls run at once (below).
 */
const STALL: Path = {
  // The idle limit also applies to the retry's answer: at 200 ms a loaded machine could let it
  // lapse there too (seen at load 16), so the stall gets a limit no scheduling delay reaches.
  options: { tuning: { ...FAST, idleTimeoutMs: 1_500 } },
  run: async (target) => {
    target.server.enqueue({ raw: [{ hold: true }] }, text("after the stall"));
    return target.prompt("hi");
  },
  outcome: { stopReason: "end_turn" },
  statuses: ["failed", "completed"],
};

const WIRES = ["openai-chat", "anthropic", "openai-responses"] as const;

/**
 * Runs `path` on `wire` and checks its outcome and that every model request is one turn, with the
 * test's own `expect` (concurrent tests need it).
 */
async function checkTurns(
  path: Path,
  wire: (typeof WIRES)[number],
  openHarness: (options: HarnessOptions) => Promise<Harness>,
  expect: ExpectStatic,
): Promise<void> {
  const harness = await openHarness({ ...path.options, wire });
  expect(await path.run(harness)).toEqual(path.outcome);
  const file = await readFile(eventsPath(harness.home, harness.session.id), "utf8");
  const turnStartLines = file.split("\n").filter((line) => line.includes('"assistant.turn_start"'));
  expect(turnStartLines).toHaveLength(harness.server.requests.length);

  // Each turn_start is closed by exactly one turn_end before anything else starts.
  const persisted = await harness.persisted();
  let open: string | undefined;
  const ended: string[] = [];
  for (const event of persisted) {
    if (event.type === "assistant.turn_start") {
      expect(open).toBeUndefined();
      open = event.data.turnId;
    } else if (event.type === "assistant.turn_end") {
      expect(event.data.turnId).toBe(open);
      ended.push(event.data.status);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
  expect(ended).toEqual(path.statuses);
}

describe.each(WIRES)("every model request is a turn (%s)", (wire) => {
  test.for(Object.entries(PATHS))("%s", async ([_name, path], { openHarness, expect }) => {
    await checkTurns(path, wire, openHarness, expect);
  });
});

// The three stalls wait on the clock, not the processor: at once, they cost one wait, not three.
describe.concurrent("every model request is a turn: a stall, then the retry's answer", () => {
  test.for(WIRES)("%s", async (wire, { openHarness, expect }) => {
    await checkTurns(STALL, wire, openHarness, expect);
  });
});
