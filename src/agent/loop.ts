import { randomUUID } from "node:crypto";
import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type {
  ErrorType,
  EventInput,
  JsonObject,
  PlanEntry,
  StopReason,
  TurnPurpose,
  UserMessageSource,
} from "../events/events.js";
import { usageCost } from "../llm/model-catalogue.js";
import type {
  AssistantReply,
  ModelRequest,
  Provider,
  ProviderFailure,
  ToolSpecification,
} from "../llm/provider.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import { AUTOPILOT_NUDGE, TASK_COMPLETE_TOOL_NAME, taskCompleteTool } from "./autopilot.js";
import type { History } from "./history.js";
import { RepetitionGuard } from "./repetition-guard.js";
import { type Authorize, executeToolCalls, type ToolCallContext } from "./tool-calls.js";

/** The plan tool: a successful call replaces the session's plan (`session.plan_updated`, ACP `plan`). */
const UPDATE_PLAN_TOOL_NAME = "update_plan";

/** How a session's loop behaves. Fixed for the length of a prompt. */
export interface AgentSettings {
  provider: Provider;
  /** Built-in and custom tools; `task_complete` is added in autopilot. */
  tools: readonly AnyTool[];
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

type TurnResult =
  | { kind: "reply"; turnId: string; reply: AssistantReply }
  | { kind: "cancelled" }
  | { kind: "failed"; failure: ProviderFailure };

/**
 * Runs one prompt to its end: appends the user message, then requests the model and runs the
 * tools it asks for until it answers without a tool call (DESIGN.md, "The loop"). Always emits
 * `session.idle` last. Never throws for model or tool failures: those are events and outcomes.
 */
export async function runPrompt(
  settings: AgentSettings,
  conversation: Conversation,
  prompt: { content: string; source?: UserMessageSource },
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
  prompt: { content: string; source?: UserMessageSource },
  signal: AbortSignal,
): Promise<PromptOutcome> {
  const { emit } = conversation;
  const tools = settings.autopilot ? [...settings.tools, taskCompleteTool] : settings.tools;
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const specifications = toolSpecifications(tools);
  const guard = new RepetitionGuard();
  emit({
    type: "user.message",
    data: { content: prompt.content, source: prompt.source ?? "user" },
  });
  let nudges = 0;
  for (let turns = 0; ; turns++) {
    if (signal.aborted) {
      return cancel(emit);
    }
    if (turns >= settings.maxTurns) {
      return { stopReason: "max_turn_requests" };
    }
    const request: ModelRequest = {
      system: settings.systemPrompt,
      messages: conversation.history.messages,
      tools: specifications,
      ...(settings.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: settings.maxOutputTokens }),
    };
    const turn = await requestTurn(settings.provider, request, emit, signal);
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
    const outcomes = await executeToolCalls(
      toolContext(settings, toolsByName, emit, signal),
      reply.toolCalls,
      {
        adjust: guard.record,
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

/**
 * One model request and its retries, each attempt a turn (DESIGN.md, "Principles"):
 * `assistant.turn_start` when a request is sent (`request_start`); a failed attempt that is
 * retried ends its turn `failed` and is followed by `assistant.retry`; a request that fails for
 * good or is cancelled ends its turn `failed` / `cancelled`. A reply records the message and
 * its usage (with its cost when the price is known) and leaves its turn open: the caller ends
 * it after the reply's tools. Deltas and tool-call starts are ephemeral events.
 */
async function requestTurn(
  provider: Provider,
  request: ModelRequest,
  emit: Conversation["emit"],
  signal: AbortSignal,
  purpose?: TurnPurpose,
): Promise<TurnResult> {
  let turnId: string | undefined;
  let messageId = "";
  // What the user saw of a reply that gets cancelled: kept, so the log shows it and the model
  // knows what it had said (case 02: replayed as a valid, non-empty assistant message).
  let shownText = "";
  const open = (): string => {
    if (turnId === undefined) {
      turnId = randomUUID();
      messageId = randomUUID();
      shownText = "";
      emit({
        type: "assistant.turn_start",
        data: { turnId, ...(purpose === undefined ? {} : { purpose }) },
      });
    }
    return turnId;
  };
  const close = (status: "cancelled" | "failed", errorType?: ErrorType): void => {
    if (turnId !== undefined) {
      const data = { turnId, status, ...(errorType === undefined ? {} : { errorType }) };
      emit({ type: "assistant.turn_end", data });
      turnId = undefined;
    }
  };
  for await (const event of provider.stream(request, signal)) {
    switch (event.type) {
      case "request_start":
        // A provider that retried without saying so: its last attempt failed.
        close("failed");
        open();
        break;
      case "text_delta":
        open();
        shownText += event.text;
        emit({ type: "assistant.message_delta", data: { messageId, deltaContent: event.text } });
        break;
      case "reasoning_delta":
        open();
        emit({ type: "assistant.reasoning_delta", data: { messageId, deltaContent: event.text } });
        break;
      case "tool_call_start":
        open();
        emit({
          type: "assistant.tool_call_start",
          data: { messageId, toolCallId: event.toolCallId, toolName: event.name },
        });
        break;
      case "retry": {
        const { type: _type, ...retry } = event;
        const failedTurnId = open();
        close("failed", event.errorType);
        emit({ type: "assistant.retry", data: { turnId: failedTurnId, ...retry } });
        break;
      }
      case "done": {
        const id = open();
        emit({ type: "assistant.message", data: messageData(messageId, event.reply) });
        const cost = usageCost(provider.id, event.usage);
        emit({
          type: "assistant.usage",
          data: {
            model: provider.id,
            turnId: id,
            ...event.usage,
            ...(cost === undefined ? {} : { cost }),
          },
        });
        return { kind: "reply", turnId: id, reply: event.reply };
      }
      case "error": {
        const cancelled = event.failure.errorType === "cancelled" || signal.aborted;
        if (shownText.trim() !== "") {
          // Cancelled or broken mid-reply (issue 11): the log keeps what the screen showed.
          const { errorType, message } = event.failure;
          emit({
            type: "assistant.message",
            data: {
              messageId,
              content: shownText,
              toolRequests: [],
              finishReason: "other",
              interrupted: true,
              ...(cancelled || errorType === "cancelled" ? {} : { error: { errorType, message } }),
            },
          });
        }
        const { errorType } = event.failure;
        close(
          cancelled ? "cancelled" : "failed",
          errorType === "cancelled" ? undefined : errorType,
        );
        return cancelled ? { kind: "cancelled" } : { kind: "failed", failure: event.failure };
      }
      default: {
        // A new provider event type fails to compile here until the loop handles it.
        const unhandled: never = event;
        void unhandled;
      }
    }
  }
  close("failed", "internal");
  return {
    kind: "failed",
    failure: { errorType: "internal", message: "the provider stream ended without a result" },
  };
}

function messageData(
  messageId: string,
  reply: AssistantReply,
): Extract<EventInput, { type: "assistant.message" }>["data"] {
  const reasoning = reply.reasoningParts.map((part) => part.text).join("");
  return {
    messageId,
    content: reply.content,
    toolRequests: reply.toolCalls,
    finishReason: reply.finishReason,
    ...(reasoning === "" ? {} : { reasoning }),
    ...(reply.reasoningParts.length === 0 ? {} : { reasoningParts: reply.reasoningParts }),
    ...(reply.providerMetadata === undefined ? {} : { providerMetadata: reply.providerMetadata }),
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
