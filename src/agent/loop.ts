import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type {
  ErrorType,
  EventInput,
  JsonObject,
  PlanEntry,
  PromptImage,
  StopReason,
  UserMessageSource,
} from "../events/events.js";
import type {
  AssistantReply,
  ModelRequest,
  Provider,
  ProviderFailure,
  ToolSpecification,
} from "../llm/provider.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import { AUTOPILOT_NUDGE, TASK_COMPLETE_TOOL_NAME, taskCompleteTool } from "./autopilot.js";
import type { CompactionOptions } from "./compaction.js";
import { CompactionGuard } from "./compaction-guard.js";
import type { History } from "./history.js";
import { requestTurn } from "./model-turn.js";
import { RepetitionGuard } from "./repetition-guard.js";
import { type Authorize, executeToolCalls, type ToolCallContext } from "./tool-calls.js";

/** The plan tool: a successful call replaces the session's plan (`session.plan_updated`, ACP `plan`). */
const UPDATE_PLAN_TOOL_NAME = "update_plan";

/** How a session's loop behaves. Fixed for the length of a prompt. */
export interface AgentSettings extends CompactionOptions {
  provider: Provider;
  /** Built-in and custom tools; `task_complete` is added in autopilot. */
  tools: readonly AnyTool[];
  /**
   * Tools that can change between model requests (MCP servers that connect late or change their
   * list), read before each request and offered after `tools`.
   */
  changingTools?: () => readonly AnyTool[];
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
  /** The face's client capabilities (ACP fs / terminal), passed on to tools. */
  client?: ClientCapabilities;
  /**
   * End the prompt (`end_turn`, the model is not asked again) once a tool call of a reply was
   * rejected (error code `rejected`: the user said no, or an app's tool reported `rejected`), as
   * the Copilot CLI does; the SDK server sets it. Default: the rejection goes back to the model.
   */
  endAfterRejection?: boolean;
}

/** What the loop reads and writes: the folded history and the session's event sink. */
export interface Conversation {
  history: History;
  /** Records an event: persisted (unless ephemeral), folded into `history`, sent to subscribers. */
  emit(event: EventInput): void;
}

/**
 * How a prompt ended: an ACP stop reason, or a failure (ACP answers those with an error).
 * `autopilotStopped` is set when autopilot reached its continuation cap before the model called
 * `task_complete` (the task was not marked complete; `-p` exits 2).
 */
export type PromptOutcome =
  | { stopReason: StopReason; autopilotStopped?: "cap_reached" }
  | { error: { errorType: ErrorType; message: string; statusCode?: number } };

/**
 * Runs one prompt to its end: appends the user message, then requests the model and runs the
 * tools it asks for until it answers without a tool call (DESIGN.md, "The loop"). Always emits
 * `session.idle` last. Never throws for model or tool failures: those are events and outcomes.
 */
export async function runPrompt(
  settings: AgentSettings,
  conversation: Conversation,
  prompt: { content: string; source?: UserMessageSource; images?: PromptImage[] },
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
    const data =
      outcome !== undefined && "stopReason" in outcome ? { stopReason: outcome.stopReason } : {};
    conversation.emit({ type: "session.idle", data });
  }
  return outcome;
}

async function runTurns(
  settings: AgentSettings,
  conversation: Conversation,
  prompt: { content: string; source?: UserMessageSource; images?: PromptImage[] },
  signal: AbortSignal,
): Promise<PromptOutcome> {
  const { emit } = conversation;
  const fixedTools = settings.autopilot ? [...settings.tools, taskCompleteTool] : settings.tools;
  const guard = new RepetitionGuard();
  let specifications = toolSpecifications(fixedTools);
  const compaction = new CompactionGuard(settings, conversation, () => specifications, signal);
  emit({
    type: "user.message",
    data: {
      content: prompt.content,
      source: prompt.source ?? "user",
      ...(prompt.images === undefined || prompt.images.length === 0
        ? {}
        : { images: prompt.images }),
    },
  });
  let nudges = 0;
  for (let turns = 0; ; turns++) {
    if (signal.aborted) {
      return cancel(emit);
    }
    if (turns >= settings.maxTurns) {
      return { stopReason: "max_turn_requests" };
    }
    const tools = [...fixedTools, ...(settings.changingTools?.() ?? [])];
    const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
    specifications = toolSpecifications(tools);
    const request: ModelRequest = {
      system: settings.systemPrompt,
      messages: conversation.history.messages,
      tools: specifications,
      ...(settings.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: settings.maxOutputTokens }),
    };
    // Compaction changes `history.messages` in place, so a replayed request sends the new view.
    const turn = await compaction.request(() =>
      requestTurn(settings.provider, request, emit, signal),
    );
    if (turn.kind === "cancelled") {
      return cancel(emit);
    }
    if (turn.kind === "failed") {
      return fail(emit, turn.failure);
    }
    const { reply, turnId } = turn;
    const endTurn = (status: "completed" | "cancelled") =>
      emit({
        type: "assistant.turn_end",
        data: { turnId, status, finishReason: reply.finishReason },
      });
    if (reply.toolCalls.length === 0) {
      endTurn("completed");
      const stop = stopWithoutTools(reply);
      if (stop !== undefined) {
        return "stopReason" in stop ? stop : fail(emit, stop);
      }
      if (settings.autopilot && nudges < settings.maxAutopilotContinues) {
        nudges++;
        emit({ type: "user.message", data: { content: AUTOPILOT_NUDGE, source: "autopilot" } });
        continue;
      }
      if (settings.autopilot) {
        emit({
          type: "session.autopilot_stopped",
          data: { reason: "cap_reached", continues: nudges },
        });
        return { stopReason: "end_turn", autopilotStopped: "cap_reached" };
      }
      return { stopReason: "end_turn" };
    }
    const truncated = reply.toolCalls.some((call) => call.argumentsError === "truncated");
    const fitResult = compaction.fitResults(reply.toolCalls.length, settings.sessionDirectory);
    const outcomes = await executeToolCalls(
      toolContext(settings, toolsByName, emit, signal),
      reply.toolCalls,
      {
        adjust: (outcome) => fitResult(guard.record(outcome)),
        ...(truncated
          ? {
              refuse: {
                code: "truncated_arguments",
                message:
                  "Not executed: the reply hit the output token limit before all tool arguments were complete. Make smaller calls.",
              },
            }
          : {}),
      },
    );
    for (const outcome of outcomes) {
      if (outcome.toolCall.name === UPDATE_PLAN_TOOL_NAME && !outcome.isError) {
        // The arguments passed the tool's schema, so they are plan entries.
        const entries = outcome.toolCall.arguments.entries as unknown as PlanEntry[];
        emit({ type: "session.plan_updated", data: { entries } });
      }
    }
    const completion = outcomes.find(
      (result) => result.toolCall.name === TASK_COMPLETE_TOOL_NAME && !result.isError,
    );
    const completed = settings.autopilot && completion !== undefined && !signal.aborted;
    if (completed) {
      const summary = String(completion.toolCall.arguments.summary ?? "");
      emit({ type: "session.task_complete", data: { summary, success: true } });
    }
    // The turn holds its tools: it ends after their results, cancelled if they were.
    endTurn(signal.aborted ? "cancelled" : "completed");
    if (signal.aborted) {
      return cancel(emit);
    }
    if (truncated) {
      return { stopReason: "max_tokens" };
    }
    if (settings.endAfterRejection && outcomes.some((item) => item.errorCode === "rejected")) {
      return { stopReason: "end_turn" };
    }
    if (completed) {
      return { stopReason: "end_turn" };
    }
    if (guard.shouldStop) {
      return { stopReason: "max_turn_requests" };
    }
  }
}

/**
 * How a reply without tool calls ends the prompt: a stop reason, a failure, or undefined when
 * the loop may go on (autopilot). Checked in this order: a content filter is a refusal even when
 * the reply is empty; an empty reply that did not simply stop (e.g. a malformed function call)
 * is no success; a reply cut at the output limit is `max_tokens`.
 */
function stopWithoutTools(
  reply: AssistantReply,
): { stopReason: StopReason } | ProviderFailure | undefined {
  if (reply.finishReason === "content-filter") {
    return { stopReason: "refusal" };
  }
  if (
    reply.content.trim() === "" &&
    reply.finishReason !== "stop" &&
    reply.finishReason !== "length"
  ) {
    const message = `the model returned an empty reply (finish reason: ${reply.finishReason}), often a malformed function call`;
    return { errorType: "malformed_response", message };
  }
  if (reply.finishReason === "length") {
    return { stopReason: "max_tokens" };
  }
  return undefined;
}

function toolContext(
  settings: AgentSettings,
  tools: ReadonlyMap<string, AnyTool>,
  emit: Conversation["emit"],
  signal: AbortSignal,
): ToolCallContext {
  return {
    tools,
    cwd: settings.cwd,
    sessionDirectory: settings.sessionDirectory,
    authorize: settings.authorize,
    emit,
    signal,
    ...(settings.client === undefined ? {} : { client: settings.client }),
  };
}

function cancel(emit: Conversation["emit"]): PromptOutcome {
  emit({ type: "abort", data: { reason: "cancelled by the user" } });
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

const specificationCache = new WeakMap<AnyTool, ToolSpecification>();

/** JSON Schema specifications of the tools, computed once per tool. */
export function toolSpecifications(tools: readonly AnyTool[]): ToolSpecification[] {
  return tools.map((tool) => {
    let specification = specificationCache.get(tool);
    if (specification === undefined) {
      const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.input, {
        io: "input",
        unrepresentable: "any",
      }) as JsonObject;
      specification = { name: tool.name, description: tool.description, inputSchema };
      specificationCache.set(tool, specification);
    }
    return specification;
  });
}
