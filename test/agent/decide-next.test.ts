import { describe, expect, test } from "vitest";
import {
  decideNext,
  type LoopCounters,
  type LoopLimits,
  type NextStep,
  requestIfAllowed,
} from "../../src/agent/decide-next.js";
import type { ToolCallOutcome } from "../../src/agent/tool-calls.js";
import type { FinishReason, ToolRequest } from "../../src/events/events.js";
import type { AssistantReply } from "../../src/llm/provider.js";

const call: ToolRequest = { toolCallId: "c1", name: "bash", arguments: { command: "ls" } };
const truncatedCall: ToolRequest = {
  toolCallId: "c2",
  name: "create",
  arguments: {},
  rawArguments: '{"path":"a.txt","file_text":"hel',
  argumentsError: "truncated",
};

function reply(content: string, finishReason: FinishReason, toolCalls: ToolRequest[] = []) {
  const value: AssistantReply = { content, reasoningParts: [], toolCalls, finishReason };
  return value;
}

const text = reply("Done.", "stop");
const withTools = reply("", "tool-calls", [call]);

const succeeded: ToolCallOutcome = { toolCall: call, content: "a.txt", isError: false };
const failed: ToolCallOutcome = {
  toolCall: call,
  content: "exit 1",
  isError: true,
  errorCode: "failed",
  exitCode: 1,
};
const rejected: ToolCallOutcome = {
  toolCall: call,
  content: "Permission denied for 'bash': the user said no",
  isError: true,
  errorCode: "rejected",
};
const completed: ToolCallOutcome = {
  toolCall: { toolCallId: "c3", name: "task_complete", arguments: { summary: "All done." } },
  content: "Task complete: All done.",
  isError: false,
  effects: [{ type: "task_complete", summary: "All done.", success: true }, { type: "stop" }],
};
const planned: ToolCallOutcome = {
  toolCall: { toolCallId: "c4", name: "update_plan", arguments: { entries: [] } },
  content: "Plan cleared.",
  isError: false,
  effects: [{ type: "plan_updated", entries: [] }],
};

const counters: LoopCounters = { turns: 1, nudges: 0, repeating: false, cancelled: false };
const limits: LoopLimits = { maxTurns: 100, autopilot: false, maxAutopilotContinues: 5 };
const autopilot: LoopLimits = { ...limits, autopilot: true };

const request: NextStep = { kind: "request" };
const nudge: NextStep = { kind: "nudge" };
const stop = (
  stopReason: "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled",
) => ({ kind: "stop", stopReason }) as const;

interface Row {
  reply: AssistantReply;
  outcomes?: ToolCallOutcome[];
  counters?: Partial<LoopCounters>;
  limits?: LoopLimits;
  next: NextStep;
}

describe("decideNext: one row per way a turn ends", () => {
  const rows: Record<string, Row> = {
    "text that stops ends the prompt": { reply: text, next: stop("end_turn") },
    "text cut at the output limit is max_tokens": {
      reply: reply("Half a sent", "length"),
      next: stop("max_tokens"),
    },
    "an empty reply cut at the output limit is max_tokens": {
      reply: reply("", "length"),
      next: stop("max_tokens"),
    },
    "a content filter is a refusal": {
      reply: reply("I can't", "content-filter"),
      next: stop("refusal"),
    },
    "an empty content-filtered reply is a refusal, not a failure": {
      reply: reply("", "content-filter"),
      next: stop("refusal"),
    },
    "an empty reply that did not stop is a malformed response (case 16)": {
      reply: reply("  ", "other"),
      next: {
        kind: "fail",
        failure: {
          errorType: "malformed_response",
          message:
            "the model returned an empty reply (finish reason: other), often a malformed function call",
        },
      },
    },
    "an empty reply that stopped ends the prompt, saying it is empty": {
      reply: reply("", "stop"),
      next: { ...stop("end_turn"), emptyAnswer: "the model returned an empty answer" },
    },
    "a reply of only reasoning ends the prompt, saying so": {
      reply: { ...reply("", "stop"), reasoningParts: [{ text: "Thinking." }] },
      next: { ...stop("end_turn"), emptyAnswer: "the model returned only reasoning, no answer" },
    },
    "text after a cancel outside autopilot still ends the prompt": {
      reply: text,
      counters: { cancelled: true },
      next: stop("end_turn"),
    },
    "autopilot: text without task_complete is nudged": {
      reply: text,
      limits: autopilot,
      next: nudge,
    },
    "autopilot: the last nudge allowed": {
      reply: text,
      counters: { nudges: 4 },
      limits: autopilot,
      next: nudge,
    },
    "autopilot: nudges used up ends the prompt, marked": {
      reply: text,
      counters: { nudges: 5 },
      limits: autopilot,
      next: { kind: "stop", stopReason: "end_turn", autopilotStopped: "cap_reached" },
    },
    "autopilot: no nudge once the turns are used up": {
      reply: text,
      counters: { turns: 100 },
      limits: autopilot,
      next: stop("max_turn_requests"),
    },
    "autopilot: no nudge after a cancel": {
      reply: text,
      counters: { cancelled: true },
      limits: autopilot,
      next: stop("cancelled"),
    },
    "autopilot: a refusal is not nudged": {
      reply: reply("", "content-filter"),
      limits: autopilot,
      next: stop("refusal"),
    },
    "tool results go back to the model": {
      reply: withTools,
      outcomes: [succeeded],
      next: request,
    },
    "a failed command goes back to the model too": {
      reply: withTools,
      outcomes: [failed],
      next: request,
    },
    "a plan update goes back to the model": {
      reply: withTools,
      outcomes: [planned],
      next: request,
    },
    "tools after the last allowed turn stop with max_turn_requests": {
      reply: withTools,
      outcomes: [succeeded],
      counters: { turns: 100 },
      next: stop("max_turn_requests"),
    },
    "tools one turn before the limit go on": {
      reply: withTools,
      outcomes: [succeeded],
      counters: { turns: 99 },
      next: request,
    },
    "a cancel during the tools is cancelled": {
      reply: withTools,
      outcomes: [completed],
      counters: { cancelled: true },
      next: stop("cancelled"),
    },
    "arguments cut at the output limit are max_tokens (case 07)": {
      reply: reply("", "length", [call, truncatedCall]),
      outcomes: [failed, failed],
      next: stop("max_tokens"),
    },
    "a rejection goes back to the model by default (case 05)": {
      reply: withTools,
      outcomes: [rejected],
      next: request,
    },
    "a rejection ends the prompt under endAfterRejection (SDK server)": {
      reply: withTools,
      outcomes: [succeeded, rejected],
      limits: { ...limits, endAfterRejection: true },
      next: stop("end_turn"),
    },
    "task_complete's stop effect ends the prompt without another request (case 28)": {
      reply: reply("", "tool-calls", [call, completed.toolCall]),
      outcomes: [succeeded, completed],
      limits: autopilot,
      next: stop("end_turn"),
    },
    "a model repeating itself stops with max_turn_requests (case 27)": {
      reply: withTools,
      outcomes: [succeeded],
      counters: { repeating: true },
      next: { ...stop("max_turn_requests"), repeated: true },
    },
    "task_complete wins over the repetition stop": {
      reply: withTools,
      outcomes: [completed],
      counters: { repeating: true },
      limits: autopilot,
      next: stop("end_turn"),
    },
  };
  test.each(Object.entries(rows))("%s", (_name, row) => {
    const state = { ...counters, ...row.counters };
    expect(decideNext(row.reply, row.outcomes ?? [], state, row.limits ?? limits)).toEqual(
      row.next,
    );
  });
});

describe("requestIfAllowed: before any request", () => {
  test.each<[string, { turns: number; cancelled: boolean }, number, NextStep]>([
    ["the first request is sent", { turns: 0, cancelled: false }, 100, request],
    [
      "a prompt cancelled before its first request sends none",
      { turns: 0, cancelled: true },
      100,
      stop("cancelled"),
    ],
    [
      "--max-turns 0 sends no request",
      { turns: 0, cancelled: false },
      0,
      stop("max_turn_requests"),
    ],
  ])("%s", (_name, state, maxTurns, next) => {
    expect(requestIfAllowed({ kind: "request" }, state, { maxTurns })).toEqual(next);
  });
});
