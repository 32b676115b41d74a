import { randomUUID } from "node:crypto";
import type { ErrorType, EventInput, TurnPurpose } from "../events/events.js";
import { usageCost } from "../llm/model-catalogue.js";
import type { AssistantReply, ModelRequest, Provider, ProviderFailure } from "../llm/provider.js";

/** Where a model turn's events go (the session's sink). */
type Emit = (event: EventInput) => void;

/** How a model request ended: a reply (its turn still open), a cancel, or a failure. */
export type TurnResult =
  | { kind: "reply"; turnId: string; reply: AssistantReply }
  | { kind: "cancelled" }
  | { kind: "failed"; failure: ProviderFailure };

/**
 * One model request and its retries, each attempt a turn (DESIGN.md, "Principles"):
 * `assistant.turn_start` when a request is sent (`request_start`); a failed attempt that is
 * retried ends its turn `failed` and is followed by `assistant.retry`; a request that fails for
 * good or is cancelled ends its turn `failed` / `cancelled`. A reply records the message and
 * its usage (with its cost when the price is known) and leaves its turn open: the caller ends
 * it after the reply's tools. Deltas and tool-call starts are ephemeral events. `purpose`
 * marks, on `assistant.turn_start`, a model call that is not one of the loop's own (a
 * compaction summary, a title); absent for the loop's requests.
 */
export async function requestTurn(
  provider: Provider,
  request: ModelRequest,
  emit: Emit,
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
