import { abortReason, errorMessage } from "../events/errors.js";
import type {
  ErrorType,
  EventInput,
  JsonValue,
  PromptBlock,
  PromptImage,
  StopReason,
  UserMessageSource,
} from "../events/events.js";
import { idleData } from "../events/idle.js";
import type { SecretValue } from "../events/secrets.js";
import type {
  AssistantReply,
  ModelRequest,
  Provider,
  ProviderFailure,
  ToolSpecification,
} from "../llm/provider.js";
import type { CommandSetup } from "../tools/command-runner.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import { AUTOPILOT_NUDGE, taskCompleteTool } from "./autopilot.js";
import type { CompactionOptions } from "./compaction.js";
import { CompactionGuard } from "./compaction-guard.js";
import type { ModelFailureSettings, NextStep } from "./decide-next.js";
import { decideNext, recordStop, requestAsking, requestIfAllowed } from "./decide-next.js";
import type { History } from "./history.js";
import { promptImagesNotice, toolImagesNotice } from "./image-notices.js";
import { requestTurn } from "./model-turn.js";
import { RepetitionGuard } from "./repetition-guard.js";
import {
  type Authorize,
  type ExecuteOptions,
  executeToolCalls,
  type ToolCallContext,
  type ToolCallOutcome,
  type UnavailableToolLookup,
  type UnknownToolCallback,
} from "./tool-calls.js";
import { applyEffects } from "./tool-effects.js";
import { toolSpecifications } from "./tool-specifications.js";

/** How a session's loop behaves. Fixed for the length of a prompt. */
export interface AgentSettings extends CompactionOptions, ModelFailureSettings {
  provider: Provider;
  /** Built-in and custom tools; `task_complete` is added in autopilot. */
  tools: readonly AnyTool[];
  /**
   * Tools that can change between model requests (MCP servers that connect late or change their
   * list), read before each request and offered after `tools`.
   */
  changingTools?: () => readonly AnyTool[];
  /**
   * The face's choice among all the tools of a request (`tools`, `task_complete` in autopilot and
   * `changingTools`, in that order), applied before each model request so that no tool bypasses
   * it (the SDK face's `availableTools`/`excludedTools`); all of them are offered when absent.
   */
  offerTools?: (tools: readonly AnyTool[]) => readonly AnyTool[];
  systemPrompt: string;
  cwd: string;
  sessionDirectory: string;
  /** Model requests allowed per prompt (`--max-turns`, default 100). */
  maxTurns: number;
  autopilot: boolean;
  /** Nudges allowed per prompt in autopilot (`--max-autopilot-continues`, default 5). */
  maxAutopilotContinues: number;
  /** Output token cap per request (tokens); provider default when absent. */
  maxOutputTokens?: number;
  authorize: Authorize;
  /**
   * Called for a call of a tool that does not exist, before its "does not exist" result is
   * recorded (the SDK server: the app's `preToolUse` hook, which the Copilot CLI runs before that
   * check, then its `postToolUseFailure` hook, whose guidance follows the result).
   */
  onUnknownTool?: UnknownToolCallback;
  /** Asked about a call of a tool not offered, before it is answered "does not exist" (MCP). */
  unavailableTool?: UnavailableToolLookup;
  /** The face's client capabilities (ACP fs), passed on to tools. */
  client?: ClientCapabilities;
  /** How commands run (runner and environment, from the session host), passed on to tools. */
  commands: CommandSetup;
  /** The session host's secrets, redacted in files tools save. */
  secrets: readonly SecretValue[];
  /**
   * End the prompt (`end_turn`, the model is not asked again) once a tool call of a reply was
   * rejected (error code `rejected`: the user said no, or an app's tool reported `rejected`), as
   * the Copilot CLI does; the SDK server sets it. Default: the rejection goes back to the model.
   */
  endAfterRejection?: boolean;
  /**
   * A face's own wording of tool results, applied to every outcome before it is recorded (the
   * SDK server: the Copilot CLI's texts). Default: turnloop's texts.
   */
  rewordResult?: (outcome: ToolCallOutcome) => ToolCallOutcome;
}

/** What the loop reads and writes: the folded history and the session's event sink. */
export interface Conversation {
  history: History;
  /** Records an event: persisted (unless ephemeral), folded into `history`, sent to subscribers. */
  emit(event: EventInput): void;
  /**
   * Makes the events emitted so far durable; awaited after the prompt's `user.message` (before the
   * first request) and before a tool runs. Rejects: the request is not sent, the tool does not run.
   */
  checkpoint?(): Promise<void>;
}

/**
 * How a prompt ended: an ACP stop reason, or a failure (ACP answers those with an error).
 * `autopilotStopped` is set when autopilot reached its continuation cap before the model called
 * `task_complete` (the task was not marked complete; `-p` exits 2); `repetition`, what the model
 * repeated, when the repetition guard stopped it (`max_turn_requests`, yet no `--max-turns`);
 * `emptyAnswer` when the model finished without text (a `session.warning` says so; `-p` exits 2).
 */
export type PromptOutcome =
  | ({ stopReason: StopReason; autopilotStopped?: "cap_reached" } & StopDetails)
  | { error: { errorType: ErrorType; message: string; statusCode?: number } };

/** What a stop adds to its reason: see {@link PromptOutcome}. */
type StopDetails = { repetition?: string; emptyAnswer?: true };

/**
 * One prompt as `user.message` records it: the text the model reads, who sent it, its images,
 * and what a face keeps beside them (the Copilot SDK's attachments as sent, its agent mode).
 */
export interface UserPrompt {
  content: string;
  source?: UserMessageSource;
  images?: PromptImage[];
  attachments?: JsonValue[];
  /** The prompt as the user gave it, when `content` is more (`user.message`'s `contentBlocks`). */
  contentBlocks?: PromptBlock[];
  agentMode?: string;
  /** The id of a prompt sent from another worker (issue 22), recorded on its `user.message`. */
  promptId?: string;
}

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
  let specifications = toolSpecifications(fixedTools);
  const compaction = new CompactionGuard(settings, conversation, () => specifications, signal);
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
    const available = [...fixedTools, ...(settings.changingTools?.() ?? [])];
    const tools = settings.offerTools?.(available) ?? available;
    specifications = toolSpecifications(tools);
    const request = modelRequest(settings, conversation.history, specifications);
    // Compaction changes `history.messages` in place, so a replayed request sends the new view.
    const turn = await requestAsking(settings, emit, signal, (watched) =>
      compaction.request(() => requestTurn(settings.provider, request, watched, signal)),
    );
    counters.turns++;
    if (turn.kind !== "reply") {
      next = turn;
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
  return conclude(emit, next, guard, signal);
}

/**
 * Records the prompt (and a notice when the model cannot see its images) and makes it durable
 * before the model is asked (DESIGN.md, SessionStore). `false` when the store refused it (a full
 * disk, a database that is down): the prompt stops there, with no request.
 */
async function storePrompt(
  settings: AgentSettings,
  { emit, checkpoint }: Conversation,
  prompt: UserPrompt,
): Promise<boolean> {
  emit({ type: "user.message", data: userMessageData(prompt) });
  emitNotice(emit, promptImagesNotice(settings.provider, prompt.images));
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
    batchOptions(reply, run.guard, fitResult, settings.rewordResult),
  );
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

function modelRequest(
  settings: AgentSettings,
  history: History,
  tools: ToolSpecification[],
): ModelRequest {
  return {
    system: settings.systemPrompt,
    messages: history.messages,
    tools,
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: settings.maxOutputTokens }),
  };
}

/**
 * How a batch runs: each outcome passes the repetition guard; when any call's arguments were cut
 * at the output limit (case 07), none of the calls runs.
 */
function batchOptions(
  reply: AssistantReply,
  guard: RepetitionGuard,
  fitResult: (outcome: ToolCallOutcome) => Promise<ToolCallOutcome>,
  reword: AgentSettings["rewordResult"],
): ExecuteOptions {
  // The face's wording, the repetition guard's warning, then the cut to the turn's share.
  const adjust = (outcome: ToolCallOutcome) =>
    fitResult(guard.record(reword === undefined ? outcome : reword(outcome)));
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
      return fail(emit, step.failure);
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
    ...(settings.onUnknownTool === undefined ? {} : { onUnknownTool: settings.onUnknownTool }),
    ...(settings.unavailableTool === undefined
      ? {}
      : { unavailableTool: settings.unavailableTool }),
    emit: conversation.emit,
    ...(conversation.checkpoint === undefined ? {} : { checkpoint: conversation.checkpoint }),
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
