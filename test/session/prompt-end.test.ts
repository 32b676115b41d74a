/**
 * One rule for a prompt's end (issue 22): the stored event that ends a prompt, how a follower
 * reads it (`PromptEnds`, session/prompt-end.ts: the `stopReason` the owner's loop stores on the
 * prompt's last turn end, an `abort`, a `session.error`; the notes older logs stored after it),
 * and the `session.idle` both the owner's loop and every follower send after it (`idleData`,
 * events/idle.ts).
 */

import { describe, expect, it } from "vitest";
import type { PromptOutcome } from "../../src/agent/loop.js";
import type { EventInput, SessionEventData, StopReason } from "../../src/events/events.js";
import { idleData } from "../../src/events/idle.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { PromptEnds, SentPrompts } from "../../src/session/prompt-end.js";
import { userMessage } from "./support.js";

const turnEnd = (data: Partial<SessionEventData["assistant.turn_end"]>): EventInput => ({
  type: "assistant.turn_end",
  data: { turnId: "t1", status: "completed", ...data },
});
const prompt = (content: string, promptId: string): EventInput => ({
  type: "user.message",
  data: { content, source: "user", promptId },
});
const failure = { errorType: "server", message: "the model is unavailable" } as const;
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
const ended = (
  turnId: string,
  finishReason: "stop" | "tool-calls" | "other" = "stop",
  stopReason?: StopReason,
) => turnEnd({ turnId, finishReason, ...(stopReason === undefined ? {} : { stopReason }) });
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

  it("a follower's prompt: started by its user.message, ended by the stored end, one idle after the last", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const news = [
      createEnvelope(prompt("one", first), null),
      createEnvelope(turnEnd({ finishReason: "stop", stopReason: "end_turn" }), null),
      createEnvelope(prompt("two", second), null),
      createEnvelope({ type: "session.error", data: failure }, null),
    ].map((event) => sent.stored(event));
    expect(news).toEqual([
      { kind: "started", promptId: first },
      { kind: "ended", end: { stopReason: "end_turn" }, promptId: first, idle: false },
      { kind: "started", promptId: second },
      { kind: "ended", end: { error: failure }, promptId: second, idle: true },
    ]);
  });

  it("one abort on the owner ends the running prompt and drops the follower's queued ones, once", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const third = sent.add();
    const dropped = (droppedPromptIds: string[]): EventInput => ({
      type: "abort",
      data: { reason: "cancelled by the user", droppedPromptIds },
    });
    const news = [
      createEnvelope(prompt("one", first), null),
      // Another worker's prompt is named too: only this follower's are news here.
      createEnvelope(dropped([second, "of-another-worker", third]), null),
      // A later abort naming none of this follower's prompts ends whatever ran, as any abort.
      createEnvelope(dropped(["of-another-worker"]), null),
    ].map((event) => sent.stored(event));
    expect(news).toEqual([
      { kind: "started", promptId: first },
      { kind: "dropped", promptIds: [second, third], cause: "abort" },
      { kind: "ended", end: { stopReason: "cancelled" }, promptId: undefined, idle: true },
    ]);
    expect([sent.has(first), sent.has(second), sent.has(third), sent.waiting]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it("a follower's prompts the owner closed the session before running are dropped by the shutdown", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const shutdown: EventInput = {
      type: "session.shutdown",
      data: {
        shutdownType: "routine",
        sessionStartTime: 0,
        totalApiDurationMs: 0,
        modelMetrics: {},
        codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
        currentModel: "fake",
        currentTokens: 0,
      },
    };
    expect(sent.stored(createEnvelope(shutdown, null))).toEqual({
      kind: "dropped",
      promptIds: [first],
      cause: "shutdown",
    });
    expect(sent.ownerClosed).toBe(true);
  });

  it("a dead owner's prompts: the running one ended unfinished, the rest dropped, and the next send claims the session", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const third = sent.add();
    sent.stored(createEnvelope(prompt("one", first), null));
    expect([sent.waiting, sent.ownerClosed, sent.unstarted()]).toEqual([
      true,
      false,
      [second, third],
    ]);
    // The follower withdrew `third` from the inbox before the owner took it.
    expect(sent.withdrawn([third, "of-another-follower"])).toEqual([third]);
    expect(sent.ownerGone()).toEqual({ dropped: [second], interrupted: first });
    expect([sent.waiting, sent.ownerClosed, sent.has(first), sent.has(second)]).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it("settling under a live lease of a newer epoch drops the prompts withdrawn and those a replaced lease took; the rest still wait", () => {
    const sent = new SentPrompts();
    const [taken, withdrawn, current, posting] = [sent.add(), sent.add(), sent.add(), sent.add()];
    sent.addressed(taken, 1);
    sent.addressed(withdrawn, 1);
    sent.addressed(current, 2);
    // `posting`'s post has not answered yet: its epoch is unknown, so it still waits.
    const settled = { withdrawn: [withdrawn], ownerStopped: false, epoch: 2 };
    expect(sent.settle(settled)).toEqual({ dropped: [taken, withdrawn], interrupted: undefined });
    expect([sent.unstarted(), sent.ownerClosed]).toEqual([[current, posting], false]);
    // The lease the prompts were sent to still holds the session: nothing changes.
    expect(sent.settle({ withdrawn: [], ownerStopped: false, epoch: 2 })).toEqual({
      dropped: [],
      interrupted: undefined,
    });
    // A fenced lease: every prompt not started is dropped, as {@link SentPrompts.ownerGone}.
    expect(sent.settle({ withdrawn: [], ownerStopped: true, epoch: 3 })).toEqual({
      dropped: [current, posting],
      interrupted: undefined,
    });
    expect([sent.waiting, sent.ownerClosed]).toEqual([false, true]);
  });
});
