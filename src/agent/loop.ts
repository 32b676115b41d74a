import { abortReason, errorMessage } from "../events/errors.js";
import type { ErrorType, EventInput } from "../events/events.js";
import { idleData } from "../events/idle.js";
import { type ModelSettingNames, withUnknownModelCure } from "../llm/model-setting-names.js";
import type {
  AssistantReply,
  HistoryMessage,
  ModelRequest,
  ProviderFailure,
  ToolResultMessage,
  ToolSpecification,
} from "../llm/provider.js";
import type { AnyTool } from "../tools/define-tool.js";
import { AUTOPILOT_NUDGE, taskCompleteTool } from "./autopilot.js";
import { CompactionGuard, promptBeyondWindow } from "./compaction-guard.js";
import type { NextStep } from "./decide-next.js";
import { decideNext, recordStop, requestAsking, requestIfAllowed } from "./decide-next.js";
import type { History } from "./history.js";
import {
  notSentNotice,
  promptImagesNotice,
  toolImagesNotice,
  undecodableImagesNotice,
} from "./image-notices.js";
import type {
  AgentSettings,
  Conversation,
  PromptOutcome,
  PromptTooLarge,
  UserPrompt,
} from "./loop-types.js";
import { requestTurn } from "./model-turn.js";
import { RepetitionGuard } from "./repetition-guard.js";
import {
  type ExecuteOptions,
  executeToolCalls,
  type ToolCallContext,
  type ToolCallOutcome,
} from "./tool-calls.js";
import { applyEffects } from "./tool-effects.js";
import { offeredTools, toolSpecifications } from "./tool-specifications.js";

export type {
  AgentSettings,
  Conversation,
  PromptOutcome,
  PromptTooLarge,
  UserPrompt,
} from "./loop-types.js";

/**
 * Runs one prompt to its end: appends the user message, then requests the model and runs the
 * tools it asks for until it answers without a tool call (DESIGN.md, "The loop"). Always emits
 * `session.idle` last. Never throws for model or tool failures: those are events and outcomes.
 */
export async function runPrompt(
  settings: AgentSettings,
  conversation: Conversation,
  prompt: UserPrompt,
  signal: AbortSignal,
): Promise<PromptOutcome> {
  let outcome: PromptOutcome | undefined;
  try {
    outcome = await runTurns(settings, conversation, prompt, signal);
  } catch (error) {
    // A bug must not leave the prompt unanswered or the session stuck: report it as a failure.
    const message = `internal error: ${errorMessage(error)}`;
    outcome = fail(conversation.emit, { errorType: "internal", message });
  } finally {
    conversation.emit({ type: "session.idle", data: idleData(outcome) });
  }
  return outcome;
}

/**
 * The loop: request the model (compacting first when the history outgrows the window), run the
 * tools of its reply, apply their effects, end the turn, and let {@link decideNext} say whether
 * to request again (nudged in autopilot) or to stop and why; {@link conclude} records the end.
 * A prompt beyond the model's known window is refused first: nothing of it stored or sent.
 */
async function runTurns(
  settings: AgentSettings,
  conversation: Conversation,
  prompt: UserPrompt,
  signal: AbortSignal,
): Promise<PromptOutcome> {
  const { emit } = conversation;
  const fixedTools = settings.autopilot ? [...settings.tools, taskCompleteTool] : settings.tools;
  const guard = new RepetitionGuard();
  let specifications = toolSpecifications(offeredTools(settings, fixedTools));
  const compaction = new CompactionGuard(settings, conversation, () => specifications, signal);
  const beyond = promptBeyondWindow(settings, prompt, specifications);
  if (beyond !== undefined) {
    return refuse(conversation, beyond);
  }
  const stored = await storePrompt(settings, conversation, prompt);
  const counters = { turns: 0, nudges: 0 };
  let next = requestIfAllowed(
    { kind: "request" },
    { turns: 0, cancelled: signal.aborted || !stored },
    settings,
  );
  while (next.kind === "request" || next.kind === "nudge") {
    if (next.kind === "nudge") {
      counters.nudges++;
      emit({ type: "user.message", data: { content: AUTOPILOT_NUDGE, source: "autopilot" } });
    }
    const tools = offeredTools(settings, fixedTools);
    specifications = toolSpecifications(tools);
    const request = modelRequest(settings, conversation.history, specifications);
    // Compaction changes `history.messages` in place, so a replayed request sends the new view.
    const turn = await requestAsking(settings, emit, signal, (watched) =>
      compaction.request(() =>
        requestTurn(settings.provider, request, watched, signal, storedFirst(conversation)),
      ),
    );
    counters.turns++;
    if (turn.kind !== "reply") {
      next = await withToolServers(turn, tools);
      break;
    }
    const { reply, turnId } = turn;
    const run = { settings, tools, conversation, guard, compaction, signal };
    const outcomes = await runToolCalls(reply, run);
    guard.endTurn();
    emitNotice(emit, toolImagesNotice(settings.provider, outcomes));
    applyEffects(outcomes, emit, signal.aborted);
    const state = { ...counters, repeating: guard.shouldStop, cancelled: signal.aborted };
    next = decideNext(reply, outcomes, state, settings);
    const stopped = recordStop(emit, next, guard, counters.nudges);
    // The turn holds its tools: it ends after their results, cancelled if they were.
    const status = reply.toolCalls.length > 0 && signal.aborted ? "cancelled" : "completed";
    emit({
      type: "assistant.turn_end",
      data: { turnId, status, finishReason: reply.finishReason, ...stopped },
    });
  }
  return conclude(emit, next, guard, signal, settings.settingNames);
}

/**
 * Records the prompt (and a notice when the model cannot see its images, was not given some of
 * its attachments, or the session's history holds images that do not decode) and makes it durable
 * before the model is asked (DESIGN.md, SessionStore). `false` when the store refused it (a full
 * disk, a database that is down): the prompt stops there, with no request.
 */
async function storePrompt(
  settings: AgentSettings,
  { emit, checkpoint, history }: Conversation,
  prompt: UserPrompt,
): Promise<boolean> {
  emit({ type: "user.message", data: userMessageData(prompt) });
  emitNotice(emit, promptImagesNotice(settings.provider, prompt.images));
  emitNotice(emit, notSentNotice(prompt.notSent));
  emitNotice(emit, undecodableImagesNotice(history));
  return (
    (await checkpoint?.().then(
      () => true,
      () => false,
    )) ?? true
  );
}

/** Runs the tool calls of `reply`, results fitted to the window; none when it asks for none. */
async function runToolCalls(
  reply: AssistantReply,
  run: {
    settings: AgentSettings;
    tools: readonly AnyTool[];
    conversation: Conversation;
    guard: RepetitionGuard;
    compaction: CompactionGuard;
    signal: AbortSignal;
  },
): Promise<ToolCallOutcome[]> {
  if (reply.toolCalls.length === 0) {
    return [];
  }
  const { settings, compaction } = run;
  const fitResult = compaction.fitResults(
    reply.toolCalls.length,
    settings.sessionDirectory,
    settings.secrets,
  );
  return executeToolCalls(
    toolContext(settings, run.tools, run.conversation, run.signal),
    reply.toolCalls,
    batchOptions(reply, run.guard, fitResult),
  );
}

/**
 * A model request is not sent while the events before it and its `assistant.turn_start` could
 * not be stored (model-turn.ts `TurnAttempts.start`), as a tool does not start before its
 * `tool.execution_start` is stored (tool-calls.ts). Recorded is enough for a request: the
 * durability points are a tool's start, a turn's end and the prompt's answer (README), and a sync
 * of `assistant.turn_start` before each request was one more wait for the disk between a turn's
 * tool results and the next request (issue 26 figure 7d, bench/notes/server35.md).
 */
function storedFirst({ checkpoint, recorded }: Conversation): { stored?: () => Promise<void> } {
  const stored = recorded ?? checkpoint;
  return stored === undefined ? {} : { stored };
}

function emitNotice(emit: Conversation["emit"], notice: EventInput | undefined): void {
  if (notice !== undefined) {
    emit(notice);
  }
}

function userMessageData(
  prompt: UserPrompt,
): Extract<EventInput, { type: "user.message" }>["data"] {
  const { attachments, agentMode, promptId, contentBlocks } = prompt;
  return {
    content: prompt.content,
    source: prompt.source ?? "user",
    ...(contentBlocks === undefined ? {} : { contentBlocks }),
    ...(prompt.images === undefined || prompt.images.length === 0 ? {} : { images: prompt.images }),
    ...(attachments === undefined || attachments.length === 0 ? {} : { attachments }),
    ...(agentMode === undefined ? {} : { agentMode }),
    ...(promptId === undefined ? {} : { promptId }),
  };
}

/** The request for the model: the history, each tool result in the face's words when it has its own. */
function modelRequest(
  settings: AgentSettings,
  history: History,
  tools: ToolSpecification[],
): ModelRequest {
  const reword = settings.rewordResult;
  return {
    system: settings.systemPrompt,
    messages: reword === undefined ? history.messages : wordedMessages(history.messages, reword),
    tools,
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: settings.maxOutputTokens }),
  };
}

/** A history as a face words it ({@link wordedMessages}), with what it was made from. */
interface WordedHistory {
  reword: (result: ToolResultMessage) => string;
  source: HistoryMessage[];
  worded: HistoryMessage[];
}

const wordedHistories = new WeakMap<readonly HistoryMessage[], WordedHistory>();

/**
 * `messages` with each tool result's content in the face's words (`reword`). Each message is
 * worded once and the same array is extended as the history grows, so that the provider's kept
 * conversion of the earlier messages (llm/convert.ts, kept by the array and by each message) holds
 * at the next request, as it does for the history itself; a history changed other than by
 * appending (a compaction), or another `reword`, is worded anew.
 */
function wordedMessages(
  messages: readonly HistoryMessage[],
  reword: (result: ToolResultMessage) => string,
): HistoryMessage[] {
  let kept = wordedHistories.get(messages);
  if (
    kept === undefined ||
    kept.reword !== reword ||
    kept.source.length > messages.length ||
    !kept.source.every((message, index) => messages[index] === message)
  ) {
    kept = { reword, source: [], worded: [] };
    wordedHistories.set(messages, kept);
  }
  for (const message of messages.slice(kept.source.length)) {
    kept.source.push(message);
    kept.worded.push(message.role === "tool" ? { ...message, content: reword(message) } : message);
  }
  return kept.worded;
}

/**
 * How a batch runs: each outcome passes the repetition guard; when any call's arguments were cut
 * at the output limit (case 07), none of the calls runs.
 */
function batchOptions(
  reply: AssistantReply,
  guard: RepetitionGuard,
  fitResult: (outcome: ToolCallOutcome) => Promise<ToolCallOutcome>,
): ExecuteOptions {
  // The repetition guard's warning, then the cut to the turn's share.
  const adjust = (outcome: ToolCallOutcome) => fitResult(guard.record(outcome));
  if (!reply.toolCalls.some((call) => call.argumentsError === "truncated")) {
    return { adjust };
  }
  return {
    adjust,
    refuse: {
      code: "truncated_arguments",
      message:
        "Not executed: the reply hit the output token limit before all tool arguments were complete. Make smaller calls.",
    },
  };
}

/** Records how the prompt ended when a cancel or a failure ended it (`abort`, `session.error`). */
function conclude(
  emit: Conversation["emit"],
  step: Extract<NextStep, { kind: "stop" | "fail" }>,
  guard: RepetitionGuard,
  signal: AbortSignal,
  names: ModelSettingNames | undefined,
): PromptOutcome {
  switch (step.kind) {
    case "stop":
      if (step.stopReason === "cancelled") {
        return cancel(emit, signal);
      }
      return {
        stopReason: step.stopReason,
        ...(step.autopilotStopped === undefined ? {} : { autopilotStopped: step.autopilotStopped }),
        ...(step.repeated === true ? { repetition: guard.stopCause } : {}),
        ...(step.emptyAnswer === undefined ? {} : { emptyAnswer: true }),
      };
    case "fail":
      return fail(emit, withUnknownModelCure(step.failure, names));
    default: {
      const unhandled: never = step;
      return unhandled;
    }
  }
}

function toolContext(
  settings: AgentSettings,
  tools: readonly AnyTool[],
  conversation: Conversation,
  signal: AbortSignal,
): ToolCallContext {
  return {
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    cwd: settings.cwd,
    sessionDirectory: settings.sessionDirectory,
    authorize: settings.authorize,
    ...(settings.onCallNotRun === undefined ? {} : { onCallNotRun: settings.onCallNotRun }),
    ...(settings.unavailableTool === undefined
      ? {}
      : { unavailableTool: settings.unavailableTool }),
    emit: conversation.emit,
    ...(conversation.checkpoint === undefined ? {} : { checkpoint: conversation.checkpoint }),
    ...(conversation.recorded === undefined ? {} : { recorded: conversation.recorded }),
    signal,
    ...(settings.client === undefined ? {} : { client: settings.client }),
    commands: settings.commands,
    secrets: settings.secrets,
    knownFiles: conversation.history.knownFiles,
  };
}

function cancel(emit: Conversation["emit"], signal: AbortSignal): PromptOutcome {
  emit({ type: "abort", data: { reason: abortReason(signal) } });
  return { stopReason: "cancelled" };
}

/**
 * Refuses a prompt too large for the window before it is stored: its `session.error` goes to the
 * subscribers only (`Conversation.report`), so no log holds a prompt that never ran; the face
 * says it and keeps the prompt (README, "A prompt too large for the model").
 */
function refuse(
  { report }: Conversation,
  { message, ...promptTooLarge }: PromptTooLarge & { message: string },
): PromptOutcome {
  const error = { errorType: "context_length_exceeded" as const, message };
  report?.({ type: "session.error", data: error });
  return { error, promptTooLarge };
}

function fail(emit: Conversation["emit"], failure: ProviderFailure): PromptOutcome {
  const errorType: ErrorType = failure.errorType === "cancelled" ? "internal" : failure.errorType;
  const statusCode = failure.statusCode;
  const data = {
    errorType,
    message: failure.message,
    ...(statusCode === undefined ? {} : { statusCode }),
  };
  emit({ type: "session.error", data });
  return { error: data };
}

/** `step`; a refusal naming an offered MCP tool also names its server (loaded only then). */
async function withToolServers<Step extends NextStep>(
  step: Step,
  tools: readonly AnyTool[],
): Promise<Step> {
  if (step.kind !== "fail" || !tools.some((tool) => tool.mcp)) {
    return step;
  }
  const { namingToolServers } = await import("../tools/mcp/refused-tools.js");
  return { ...step, failure: namingToolServers(step.failure, tools) } satisfies NextStep as Step;
}
