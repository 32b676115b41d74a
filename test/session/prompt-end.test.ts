/**
 * One rule for a prompt's end (issue 22): the stored event that ends a prompt, how a follower
 * reads it (`PromptEnds`, session/prompt-end.ts: the `stopReason` the owner's loop stores on the
 * prompt's last turn end, an `abort`, a `session.error`; the notes older logs stored after it),
 * and the `session.idle` both the owner's loop and every follower send after it (`idleData`,
 * events/idle.ts).
 */

import { describe, expect, it } from "vitest";
import type { PromptOutcome } from "../../src/agent/loop.js";
import type { EventInput } from "../../src/events/events.js";
import { idleData } from "../../src/events/idle.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { OpenWork } from "../../src/session/open-work.js";
import { PROMPT_INTERRUPTED, PromptEnds } from "../../src/session/prompt-end.js";
import { ended, failure, turnEnd } from "./prompt-end-events.js";
import { userMessage } from "./support.js";

/** How the prompt ended when `event` is the only event a fresh reader read. */
const promptEnd = (event: Parameters<PromptEnds["read"]>[0]) => new PromptEnds().read(event);

/** [what happened, the stored event, how the prompt ended (undefined: it goes on), the idle]. */
const TABLE: ReadonlyArray<
  [string, EventInput, ReturnType<typeof promptEnd>, ReturnType<typeof idleData> | undefined]
> = [
  [
    "the model answered",
    turnEnd({ finishReason: "stop", stopReason: "end_turn" }),
    { stopReason: "end_turn" },
    { stopReason: "end_turn" },
  ],
  [
    "cut at its length limit",
    turnEnd({ finishReason: "length", stopReason: "max_tokens" }),
    { stopReason: "max_tokens" },
    { stopReason: "max_tokens" },
  ],
  [
    "filtered",
    turnEnd({ finishReason: "content-filter", stopReason: "refusal" }),
    { stopReason: "refusal" },
    { stopReason: "refusal" },
  ],
  [
    "--max-turns reached after a turn that asked for tools",
    turnEnd({ finishReason: "tool-calls", stopReason: "max_turn_requests" }),
    { stopReason: "max_turn_requests" },
    { stopReason: "max_turn_requests" },
  ],
  ["it asked for tools", turnEnd({ finishReason: "tool-calls" }), undefined, undefined],
  [
    "an answer the loop goes on after (autopilot's nudge follows), or an older log's",
    turnEnd({ finishReason: "stop" }),
    undefined,
    undefined,
  ],
  ["a turn cancelled (the abort follows)", turnEnd({ status: "cancelled" }), undefined, undefined],
  [
    "a turn failed (retried, or the error follows)",
    turnEnd({ status: "failed", finishReason: "error" }),
    undefined,
    undefined,
  ],
  [
    "cancelled",
    { type: "abort", data: { reason: "cancelled by the user" } },
    { stopReason: "cancelled" },
    { stopReason: "cancelled" },
  ],
  [
    "cancelled, dropping queued prompts of another worker",
    { type: "abort", data: { reason: "cancelled by the user", droppedPromptIds: ["p1"] } },
    { stopReason: "cancelled" },
    { stopReason: "cancelled" },
  ],
  ["failed", { type: "session.error", data: failure }, { error: failure }, {}],
  ["a prompt", userMessage("hello"), undefined, undefined],
];

const start = (turnId: string, purpose?: "compaction"): EventInput => ({
  type: "assistant.turn_start",
  data: purpose === undefined ? { turnId } : { turnId, purpose },
});
const reply = (
  content: string,
  finishReason: "stop" | "tool-calls" | "other" = "stop",
  toolRequests: Array<{ toolCallId: string; name: string; argumentsError?: "truncated" }> = [],
): EventInput => ({
  type: "assistant.message",
  data: {
    messageId: `m-${content}`,
    content,
    finishReason,
    toolRequests: toolRequests.map((call) => ({ ...call, arguments: {} })),
  },
});
const result = (toolCallId: string, code?: "rejected" | "truncated_arguments"): EventInput => ({
  type: "tool.execution_complete",
  data: {
    toolCallId,
    toolName: "bash",
    success: code === undefined,
    result: { content: code ?? "ok" },
    ...(code === undefined ? {} : { error: { message: code, code } }),
  },
});
const sent = (agentMode?: string): EventInput => ({
  type: "user.message",
  data: { content: "go", source: "user", ...(agentMode === undefined ? {} : { agentMode }) },
});
const bash = { toolCallId: "c1", name: "bash" };

const nudge: EventInput = {
  type: "user.message",
  data: { content: "keep going", source: "autopilot" },
};
const capReached: EventInput = {
  type: "session.autopilot_stopped",
  data: { reason: "cap_reached", continues: 1 },
};
const repetition: EventInput = {
  type: "session.warning",
  data: { warningType: "repetition", message: "stopped: …" },
};

/**
 * [what happened, a prompt's stored events as the loop stores them (or an older version did), how
 * the prompt ended at the last of them]: a reader of the events in order finds the end there and
 * nowhere before.
 */
const SEQUENCES: ReadonlyArray<[string, EventInput[], ReturnType<typeof promptEnd>]> = [
  [
    "a compaction's summary request ends no prompt: the reply after it does",
    [
      sent("interactive"),
      {
        type: "session.compaction_start",
        data: { trigger: "threshold", currentTokens: 9, tokenLimit: 8 },
      },
      start("c", "compaction"),
      reply("the summary"),
      ended("c"),
      {
        type: "session.compaction_complete",
        data: { success: true, trigger: "threshold", preCompactionTokens: 9 },
      },
      start("t"),
      reply("the answer"),
      ended("t", "stop", "end_turn"),
    ],
    { stopReason: "end_turn" },
  ],
  [
    "autopilot of -p or ACP (no agent mode stored): a nudged answer, then the nudges used up",
    [
      sent(),
      start("t1"),
      reply("done?"),
      ended("t1"),
      nudge,
      start("t2"),
      reply("done."),
      capReached,
      ended("t2", "stop", "end_turn"),
    ],
    { stopReason: "end_turn" },
  ],
  [
    "autopilot: task_complete ends the turn that called it",
    [
      sent(),
      start("t1"),
      reply("done?"),
      ended("t1"),
      nudge,
      start("t2"),
      reply("", "tool-calls", [{ toolCallId: "c1", name: "task_complete" }]),
      { type: "session.task_complete", data: { summary: "all done", success: true } },
      ended("t2", "tool-calls", "end_turn"),
    ],
    { stopReason: "end_turn" },
  ],
  [
    "--max-turns: the last turn allowed asked for tools",
    [
      sent(),
      start("t1"),
      reply("", "tool-calls", [bash]),
      result("c1"),
      ended("t1", "tool-calls"),
      start("t2"),
      reply("", "tool-calls", [bash]),
      result("c1", "rejected"),
      ended("t2", "tool-calls", "max_turn_requests"),
    ],
    { stopReason: "max_turn_requests" },
  ],
  [
    "the repetition guard: its notice inside the turn, the turn's end the prompt's",
    [
      sent(),
      start("t"),
      reply("", "tool-calls", [bash]),
      result("c1"),
      repetition,
      ended("t", "tool-calls", "max_turn_requests"),
    ],
    { stopReason: "max_turn_requests" },
  ],
  [
    "a failed request an SDK app's errorOccurred hook skipped: the warning after the turn ends it",
    [
      sent(),
      start("t1"),
      turnEnd({ turnId: "t1", status: "failed", errorType: "server" }),
      { type: "session.warning", data: { warningType: "model_call_skipped", message: "skipped" } },
    ],
    { stopReason: "end_turn" },
  ],
  [
    "an empty reply fails the prompt: its error ends it, once",
    [
      sent(),
      start("t"),
      reply("", "other"),
      ended("t", "other"),
      { type: "session.error", data: failure },
    ],
    { error: failure },
  ],
  [
    "an older log: autopilot's cap stored after the prompt's last turn",
    [sent("autopilot"), start("t1"), reply("done."), ended("t1"), capReached],
    { stopReason: "end_turn" },
  ],
  [
    "an older log: the repetition guard's notice stored after the prompt's last turn",
    [
      sent(),
      start("t"),
      reply("", "tool-calls", [bash]),
      result("c1"),
      ended("t", "tool-calls"),
      repetition,
    ],
    { stopReason: "max_turn_requests" },
  ],
];

describe("a prompt's end, for its owner and its followers", () => {
  it.each(TABLE)("%s", (_, input, end, idle) => {
    const event = createEnvelope(input, null);
    expect(promptEnd(event)).toEqual(end);
    expect(end === undefined ? undefined : idleData(end)).toEqual(idle);
  });

  it("the owner's loop outcome gives the idle its stored end gives a follower", () => {
    // agent/loop.ts's outcome: a stop reason (with autopilot's note), or the error.
    const stopped: PromptOutcome = { stopReason: "end_turn", autopilotStopped: "cap_reached" };
    const failed: PromptOutcome = { error: failure };
    const stored = (input: EventInput) => promptEnd(createEnvelope(input, null));
    const lastTurnEnd = turnEnd({ finishReason: "stop", stopReason: "end_turn" });
    expect(idleData(stopped)).toEqual(idleData(stored(lastTurnEnd)));
    expect(idleData(failed)).toEqual(idleData(stored({ type: "session.error", data: failure })));
    expect([idleData(stopped), idleData(failed), idleData(undefined)]).toEqual([
      { stopReason: "end_turn" },
      {},
      {},
    ]);
  });

  it.each(SEQUENCES)("%s", (_, inputs, ends) => {
    const reader = new PromptEnds();
    const read = inputs.map((input) => reader.read(createEnvelope(input, null)));
    // One end, at the event where the owner's loop stopped; none before it.
    expect(read).toEqual([...inputs.slice(1).map(() => undefined), ends]);
  });

  /** What a reader finds in `inputs`, then in what a reopen writes to close their open work. */
  const readWithRepair = (inputs: readonly EventInput[]) => {
    const reader = new PromptEnds();
    const open = new OpenWork();
    const events = inputs.map((input) => createEnvelope(input, null));
    for (const event of events) {
      open.apply(event);
    }
    const reopen: EventInput = {
      type: "session.resume",
      data: { resumeTime: "2026-01-01T00:00:00.000Z", eventCount: 9, repaired: [] },
    };
    const repair = [reopen, ...open.closingEvents([])].map((input) => createEnvelope(input, null));
    return [...events, ...repair].map((event) => [event.type, reader.read(event)]);
  };
  const interrupted = { error: PROMPT_INTERRUPTED, stored: false };
  const compacting: EventInput = {
    type: "session.compaction_start",
    data: { trigger: "threshold", currentTokens: 9, tokenLimit: 8 },
  };

  it("a prompt whose process ended mid-turn ends where the reopen closes its turn", () => {
    expect(readWithRepair([sent(), start("t1"), reply("", "tool-calls", [bash])])).toEqual([
      ["user.message", undefined],
      ["assistant.turn_start", undefined],
      ["assistant.message", undefined],
      ["session.resume", undefined],
      ["assistant.turn_end", interrupted],
    ]);
  });

  it("one whose process ended mid-compaction ends where the reopen closes the compaction", () => {
    const inputs = [
      sent(),
      start("t1"),
      ended("t1", "tool-calls"),
      compacting,
      start("c", "compaction"),
    ];
    expect(readWithRepair(inputs).slice(-3)).toEqual([
      ["session.resume", undefined],
      ["assistant.turn_end", undefined],
      ["session.compaction_complete", interrupted],
    ]);
  });

  it("a turn left open after its prompt ended (a title's) ends no prompt when closed", () => {
    const inputs = [sent(), start("t1"), ended("t1", "stop", "end_turn"), start("title")];
    expect(readWithRepair(inputs).slice(2)).toEqual([
      ["assistant.turn_end", { stopReason: "end_turn" }],
      ["assistant.turn_start", undefined],
      ["session.resume", undefined],
      ["assistant.turn_end", undefined],
    ]);
  });
});
