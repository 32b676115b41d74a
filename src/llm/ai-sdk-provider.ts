import type {
  LanguageModelV3,
  LanguageModelV3StreamPart,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import { type ReplayFilter, toFunctionTools, toPrompt } from "./convert.js";
import { type ClassifiedFailure, classifyFailure } from "./errors.js";
import { collectScheduledGarbage, shareHugeTexts } from "./huge-messages.js";
import type { ImageInput } from "./image-input.js";
import type { LlmEvent, ModelRequest, Provider, ProviderFailure } from "./provider.js";
import { ReplyAssembler } from "./reply-assembler.js";
import { DEFAULT_RETRY_POLICY, delayBeforeRetry, type RetryPolicy } from "./retry-policy.js";
import { StallWatchdog } from "./stall-watchdog.js";
import { ToolCallIdAssigner } from "./tool-call-ids.js";

/** Default inter-chunk idle limit (ms): generous, since reasoning models pause (case 20). */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

export interface AiSdkProviderOptions {
  /** `<provider>:<model>`. */
  id: string;
  /**
   * Creates the AI SDK model. Called lazily (provider packages load on first use) and again with
   * `includeUsage: false` if the server rejects `stream_options` (case 15).
   */
  createModel(settings: { includeUsage: boolean }): Promise<LanguageModelV3>;
  /** Sent with every request, e.g. `{openai: {store: false}}`. */
  providerOptions?: SharedV3ProviderOptions;
  replayFilter?: ReplayFilter;
  /** Whether the API takes image input, in user messages and tool results (Anthropic, OpenAI Responses). */
  toolResultImages?: boolean;
  /** Whether the API takes images in user messages; default {@link toolResultImages}. */
  userImages?: boolean;
  retry?: Partial<RetryPolicy>;
  /** No stream part for this long (ms) fails the attempt as `stalled`. */
  idleTimeoutMs?: number;
  /**
   * Recognises the wire's terminator among the raw (parsed) stream chunks, for wires whose AI SDK
   * model reports a finish without having seen it (Anthropic's `message_stop`). A body that ends
   * before it is a cut-off stream. Absent: the model's own finish is trusted.
   */
  isTerminator?: (rawChunk: unknown) => boolean;
  /**
   * Whether the model's `fetch` is wrapped by `withHugeBodies` (huge-messages.ts): then a prompt's
   * huge texts reach the SDK as placeholders that the fetch fills in while sending, so the SDK's
   * JSON body holds no second copy of them (issue 27 item 3). Default false.
   */
  sharesHugeTexts?: boolean;
}

type AttemptOutcome = { ok: true } | { ok: false; failure: ClassifiedFailure; shown: boolean };

/**
 * A {@link Provider} over an AI SDK v6 language model (`doStream`, one call per turn). Retries are
 * ours: 429/5xx/overloaded/network/stalled failures are retried with jittered exponential backoff
 * or the server's `Retry-After` (the larger), only while nothing of the attempt was shown, and the
 * wait is cancellable. Tool-call ids are made unique in the session ({@link ToolCallIdAssigner}).
 * Never throws: every stream ends in `done` or `error`.
 */
export class AiSdkProvider implements Provider {
  readonly id: string;
  readonly imageInput: ImageInput;
  private readonly options: AiSdkProviderOptions;
  private readonly retry: RetryPolicy;
  private readonly idleTimeoutMs: number;
  private model: Promise<LanguageModelV3> | undefined;
  private includeUsage = true;

  constructor(options: AiSdkProviderOptions) {
    this.id = options.id;
    this.options = options;
    const toolResults = options.toolResultImages ?? false;
    this.imageInput = { user: options.userImages ?? toolResults, toolResults };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    try {
      for (let attempt = 0; ; attempt++) {
        const outcome = yield* this.attempt(request, signal);
        if (outcome.ok) {
          return;
        }
        if (signal.aborted) {
          yield cancelled();
          return;
        }
        const { failure } = outcome;
        if (this.includeUsage && /stream_options/i.test(failure.message) && !outcome.shown) {
          // Some OpenAI-compatible servers reject `stream_options`: remember, and ask without it.
          this.includeUsage = false;
          this.model = undefined;
          yield retryEvent(attempt, failure, 0);
          continue;
        }
        const maxRetries = Math.min(this.retry.maxRetries, failure.maxRetries ?? Infinity);
        if (!failure.retryable || outcome.shown || attempt >= maxRetries) {
          yield { type: "error", failure: publicFailure(failure) };
          return;
        }
        const delayMs = delayBeforeRetry(this.retry, attempt, failure);
        if (delayMs === undefined) {
          // Not rounded: 1.4 s must not read "1 s, longer than the 1 s we wait".
          const seconds = (failure.retryAfterMs ?? 0) / 1000;
          const message = `${failure.message} (the server asked to retry after ${seconds} s, longer than the ${this.retry.retryAfterCapMs / 1000} s we wait)`;
          yield { type: "error", failure: publicFailure({ ...failure, message }) };
          return;
        }
        yield retryEvent(attempt, failure, delayMs);
        if (!(await sleep(delayMs, signal))) {
          yield cancelled();
          return;
        }
      }
    } catch (error) {
      // The contract is "never throws": a bug here still ends the stream with an error event.
      yield { type: "error", failure: publicFailure(classifyFailure(error)) };
    }
  }

  /**
   * One model request: its progress events as they come, then `done`; or the failure the retry
   * loop judges (`shown`: whether text or reasoning already reached the user).
   */
  private async *attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): AsyncGenerator<LlmEvent, AttemptOutcome> {
    const attemptController = new AbortController();
    const abortAttempt = () => attemptController.abort(signal.reason);
    signal.addEventListener("abort", abortAttempt, { once: true });
    const watchdog = new StallWatchdog(this.idleTimeoutMs, () =>
      attemptController.abort(new Error("stalled")),
    );
    const progress = { shown: false };
    let releaseTexts = () => {};
    try {
      this.model ??= this.options.createModel({ includeUsage: this.includeUsage });
      const model = await this.model;
      // The idle clock starts with the request: loading the provider package on a cold start is
      // not the server being silent, and must not turn into a "stall" and a retry.
      watchdog.start();
      yield { type: "request_start" };
      watchdog.progress();
      // A huge prompt's earlier copies go before the SDK serialises the request (huge-messages.ts).
      collectScheduledGarbage();
      const call = this.callFor(request, attemptController.signal);
      if (this.options.sharesHugeTexts === true) {
        const shared = shareHugeTexts(call.prompt);
        call.prompt = shared.value;
        releaseTexts = shared.release;
      }
      const stream =
        request.streaming === false
          ? generatedParts(await model.doGenerate(call))
          : (await model.doStream(call)).stream;
      return yield* this.read(stream, request, watchdog, progress);
    } catch (error) {
      if (watchdog.stalled && !signal.aborted) {
        // Not rounded: a sub-second limit must not read "no data for 0 s".
        const message = `the model stream stalled: no data for ${this.idleTimeoutMs / 1000} s`;
        const failure: ClassifiedFailure = { errorType: "stalled", message, retryable: true };
        return { ok: false, failure, shown: progress.shown };
      }
      return { ok: false, failure: classifyFailure(error), shown: progress.shown };
    } finally {
      releaseTexts();
      watchdog.stop();
      signal.removeEventListener("abort", abortAttempt);
      // Closes the connection if we stopped reading early (error part, consumer gave up).
      attemptController.abort();
    }
  }

  /** The AI SDK call options of `request`. */
  private callFor(request: ModelRequest, abortSignal: AbortSignal) {
    return {
      prompt: toPrompt(
        request.system,
        request.messages,
        this.options.replayFilter,
        this.imageInput.toolResults,
        this.imageInput.user,
        request.toolImages,
      ),
      tools: toFunctionTools(request.tools),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: request.maxOutputTokens }),
      ...(request.headers === undefined ? {} : { headers: request.headers }),
      abortSignal,
      includeRawChunks: this.options.isTerminator !== undefined,
      ...providerOptionsFor(this.options.providerOptions, request.reasoningEffort),
    };
  }

  /**
   * Reads one reply's parts into progress events and the assembled reply. A part `error`, a
   * body that ends before the model's finish, or before the wire's terminator, fails the attempt.
   * `progress.shown` turns true once text or reasoning reached the user: a tool call whose
   * arguments were still streaming does not count (a retry then loses nothing, issue 11).
   */
  private async *read(
    stream: ReadableStream<LanguageModelV3StreamPart>,
    request: ModelRequest,
    watchdog: StallWatchdog,
    progress: { shown: boolean },
  ): AsyncGenerator<LlmEvent, AttemptOutcome> {
    // A non-streaming reply is one JSON body: the SDK parsed it whole, so it cannot be cut off
    // unnoticed and has no stream terminator to wait for (issue 27: Anthropic via the Copilot SDK).
    let terminated = this.options.isTerminator === undefined || request.streaming === false;
    const assembler = new ReplyAssembler();
    const toolCallIds = new ToolCallIdAssigner(request.messages);
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      const part = toolCallIds.assign(value);
      watchdog.progress();
      if (part.type === "error") {
        await reader.cancel().catch(() => undefined);
        return { ok: false, failure: classifyFailure(part.error), shown: progress.shown };
      }
      if (part.type === "raw") {
        terminated ||= this.options.isTerminator?.(part.rawValue) === true;
        continue;
      }
      assembler.add(part);
      const event = request.streaming === false ? undefined : progressEvent(part);
      if (event !== undefined) {
        progress.shown ||= event.type !== "tool_call_start";
        yield event;
        watchdog.progress();
      }
    }
    if (!assembler.finished || !terminated) {
      return { ok: false, failure: cutOffFailure(), shown: progress.shown };
    }
    yield { type: "done", ...assembler.reply() };
    return { ok: true };
  }
}

/**
 * The adapter's provider options with the request's reasoning effort for the OpenAI wires. The
 * system prompt keeps the `system` role then (the AI SDK would send `developer` for reasoning
 * models; the Copilot CLI sends `system`, and the OpenAI API takes both).
 */
function providerOptionsFor(
  base: SharedV3ProviderOptions | undefined,
  reasoningEffort: string | undefined,
): { providerOptions?: SharedV3ProviderOptions } {
  if (reasoningEffort === undefined) {
    return base === undefined ? {} : { providerOptions: base };
  }
  return {
    providerOptions: {
      ...base,
      openai: { ...base?.openai, reasoningEffort, systemMessageMode: "system" },
      openaiCompatible: { ...base?.openaiCompatible, reasoningEffort },
    },
  };
}

/**
 * A non-streaming result as the stream parts it stands for, so one assembler builds both kinds of
 * reply. Nothing of it counts as progress shown early: it arrives whole.
 */
function generatedParts(
  result: Awaited<ReturnType<LanguageModelV3["doGenerate"]>>,
): ReadableStream<LanguageModelV3StreamPart> {
  const parts: LanguageModelV3StreamPart[] = [];
  result.content.forEach((content, index) => {
    const id = String(index);
    switch (content.type) {
      case "text":
        parts.push({ type: "text-delta", id, delta: content.text });
        break;
      case "reasoning":
        parts.push({
          type: "reasoning-delta",
          id,
          delta: content.text,
          ...(content.providerMetadata === undefined
            ? {}
            : { providerMetadata: content.providerMetadata }),
        });
        break;
      case "tool-call":
        parts.push(content);
        break;
      default:
        break;
    }
  });
  parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) {
        controller.enqueue(part);
      }
      controller.close();
    },
  });
}

function progressEvent(
  part: Parameters<ReplyAssembler["add"]>[0],
): Exclude<LlmEvent, { type: "done" | "error" | "retry" }> | undefined {
  switch (part.type) {
    case "text-delta":
      return part.delta === "" ? undefined : { type: "text_delta", text: part.delta };
    case "reasoning-delta":
      return part.delta === "" ? undefined : { type: "reasoning_delta", text: part.delta };
    case "tool-input-start":
      return { type: "tool_call_start", toolCallId: part.id, name: part.toolName };
    default:
      return undefined;
  }
}

/** A body that ended (cleanly or not) before the wire's end of reply: a network failure. */
function cutOffFailure(): ClassifiedFailure {
  return {
    errorType: "network",
    message: "the model stream ended before the reply was complete (connection cut)",
    retryable: true,
  };
}

function retryEvent(attempt: number, failure: ClassifiedFailure, delayMs: number): LlmEvent {
  return {
    type: "retry",
    attempt: attempt + 1,
    errorType: failure.errorType,
    errorMessage: failure.message,
    delayMs,
    ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
  };
}

function publicFailure(failure: ClassifiedFailure): ProviderFailure {
  return {
    errorType: failure.errorType,
    message: failure.message,
    ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
  };
}

function cancelled(): LlmEvent {
  return { type: "error", failure: { errorType: "cancelled", message: "cancelled" } };
}

/** Waits `ms` milliseconds; resolves false at once if `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
