import { errorMessage } from "../events/errors.js";
import type { ErrorType, EventInput, TurnPurpose, Usage } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { usageCost } from "../llm/model-catalogue.js";
import type { AssistantReply, ModelRequest, Provider, ProviderFailure } from "../llm/provider.js";

/** Where a model turn's events go (the session's sink). */
type Emit = (event: EventInput) => void;

/**
 * Resolves once the store holds every event emitted so far (the session's `recorded`, or its
 * checkpoint, which also makes them durable: loop-types.ts `Conversation`); rejects when the
 * store cannot hold them.
 */
export type Stored = () => Promise<void>;

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
 * compaction summary, a title); absent for the loop's requests. `stored`, when given, is awaited
 * before each attempt is sent, for the events before it and then for its `assistant.turn_start`
 * ({@link TurnAttempts.start}): nothing is billed that the log cannot record.
 */
export async function requestTurn(
  provider: Provider,
  request: ModelRequest,
  emit: Emit,
  signal: AbortSignal,
  options: { purpose?: TurnPurpose; stored?: Stored } = {},
): Promise<TurnResult> {
  const attempts = new TurnAttempts(emit, options.purpose);
  for await (const event of provider.stream(request, signal)) {
    switch (event.type) {
      case "request_start": {
        // The provider sends the request when asked for its next event: not before this ends.
        const refused = await attempts.start(options.stored, signal);
        if (refused !== undefined) {
          return refused;
        }
        break;
      }
      case "text_delta":
        attempts.text(event.text);
        break;
      case "reasoning_delta":
        emit({
          type: "assistant.reasoning_delta",
          data: { messageId: attempts.open().messageId, deltaContent: event.text },
        });
        break;
      case "tool_call_start": {
        const { messageId } = attempts.open();
        const { toolCallId, name: toolName } = event;
        emit({ type: "assistant.tool_call_start", data: { messageId, toolCallId, toolName } });
        break;
      }
      case "retry": {
        const { type: _type, ...retry } = event;
        const { turnId } = attempts.open();
        attempts.close("failed", event.errorType);
        emit({ type: "assistant.retry", data: { turnId, ...retry } });
        break;
      }
      case "done":
        return attempts.reply(provider, event.reply, event.usage);
      case "error":
        return attempts.fail(event.failure, signal);
      default: {
        // A new provider event type fails to compile here until the loop handles it.
        const unhandled: never = event;
        void unhandled;
      }
    }
  }
  attempts.close("failed", "internal");
  return {
    kind: "failed",
    failure: { errorType: "internal", message: "the provider stream ended without a result" },
  };
}

/** The attempts of one model request, each a turn; at most one is open at a time. */
class TurnAttempts {
  private turnId: string | undefined;
  private messageId = "";
  // What the user saw of a reply that gets cancelled: kept, so the log shows it and the model
  // knows what it had said (case 02: replayed as a valid, non-empty assistant message).
  private shownText = "";

  constructor(
    private readonly emit: Emit,
    private readonly purpose: TurnPurpose | undefined,
  ) {}

  /**
   * Begins an attempt about to be sent: ends the one still open (a provider that retried without
   * saying so: it failed), then, with `stored`, waits until the store holds the events before
   * it, opens the attempt's turn and waits until it holds its `assistant.turn_start`, so that
   * the request is not sent while the log cannot record it or what it carries (the tool results
   * of the turn before). A cancel, or the store's failure (which stops the prompt:
   * session-journal.ts), ends the wait.
   * @returns how the request ends when it must not be sent; `undefined`: send it.
   */
  async start(stored: Stored | undefined, signal: AbortSignal): Promise<TurnResult | undefined> {
    this.close("failed");
    let refusal = stored === undefined ? undefined : await untilStored(stored, signal);
    if (refusal === undefined) {
      this.open();
      refusal = stored === undefined ? undefined : await untilStored(stored, signal);
    }
    if (refusal === undefined) {
      return undefined;
    }
    return this.fail({ errorType: "storage", message: errorMessage(refusal) }, signal);
  }

  /** The open attempt; opens one (`assistant.turn_start`) when none is. */
  open(): { turnId: string; messageId: string } {
    if (this.turnId === undefined) {
      this.turnId = randomUUID();
      this.messageId = randomUUID();
      this.shownText = "";
      const { purpose } = this;
      this.emit({
        type: "assistant.turn_start",
        data: { turnId: this.turnId, ...(purpose === undefined ? {} : { purpose }) },
      });
    }
    return { turnId: this.turnId, messageId: this.messageId };
  }

  /** Ends the open attempt, if any, with `status`. */
  close(status: "cancelled" | "failed", errorType?: ErrorType): void {
    if (this.turnId !== undefined) {
      const data = {
        turnId: this.turnId,
        status,
        ...(errorType === undefined ? {} : { errorType }),
      };
      this.emit({ type: "assistant.turn_end", data });
      this.turnId = undefined;
    }
  }

  /** A piece of the visible reply (ephemeral `assistant.message_delta`). */
  text(text: string): void {
    const { messageId } = this.open();
    this.shownText += text;
    this.emit({ type: "assistant.message_delta", data: { messageId, deltaContent: text } });
  }

  /**
   * Records the reply and its usage (with its cost when known, priced by the provider's
   * `typeId`: a config profile's model as its provider type's); its turn stays open.
   */
  reply(
    provider: Pick<Provider, "id" | "typeId">,
    reply: AssistantReply,
    usage: Usage,
  ): TurnResult {
    const { turnId, messageId } = this.open();
    this.emit({ type: "assistant.message", data: messageData(messageId, reply) });
    const model = provider.id;
    const cost = usageCost(provider.typeId ?? model, usage);
    this.emit({
      type: "assistant.usage",
      data: { model, turnId, ...usage, ...(cost === undefined ? {} : { cost }) },
    });
    return { kind: "reply", turnId, reply };
  }

  /** Ends the attempt cancelled or failed, keeping what the screen showed of its reply. */
  fail(failure: ProviderFailure, signal: AbortSignal): TurnResult {
    const { errorType, message } = failure;
    const cancelled = errorType === "cancelled" || signal.aborted;
    if (this.shownText.trim() !== "") {
      // Cancelled or broken mid-reply (issue 11): the log keeps what the screen showed.
      this.emit({
        type: "assistant.message",
        data: {
          messageId: this.messageId,
          content: this.shownText,
          toolRequests: [],
          finishReason: "other",
          interrupted: true,
          ...(cancelled ? {} : { error: { errorType, message } }),
        },
      });
    }
    this.close(
      cancelled ? "cancelled" : "failed",
      errorType === "cancelled" ? undefined : errorType,
    );
    return cancelled ? { kind: "cancelled" } : { kind: "failed", failure };
  }
}

/**
 * Waits for `stored` or a cancel of `signal`, whichever comes first (a commit queued behind one
 * that is still retrying an unreachable database waits for its tries; the first failure stops the
 * prompt): @returns `undefined` once stored, else the store's error or the cancel's reason.
 */
function untilStored(stored: Stored, signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) {
    return Promise.resolve(signal.reason ?? new Error("cancelled"));
  }
  return new Promise((resolve) => {
    const onAbort = () => resolve(signal.reason ?? new Error("cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    stored()
      .then(
        () => resolve(undefined),
        (error: unknown) => resolve(error ?? new Error("the events could not be stored")),
      )
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
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
