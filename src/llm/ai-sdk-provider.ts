import type { LanguageModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { type ReplayFilter, toFunctionTools, toPrompt } from "./convert.js";
import { type ClassifiedFailure, classifyFailure } from "./errors.js";
import { type AttemptOutcome, type AttemptSettings, ModelAttempt } from "./model-attempt.js";
import type { ImageInput, LlmEvent, ModelRequest, Provider, ProviderFailure } from "./provider.js";
import type { ToolCallIdAssigner } from "./tool-call-ids.js";

/** Default inter-chunk idle limit (ms): generous, since reasoning models pause (case 20). */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

export interface AiSdkProviderOptions {
  /** `<provider>:<model>`, or `<profile>:<model>` for a config profile's model. */
  id: string;
  /** See {@link Provider.typeId}; absent: {@link id}. */
  typeId?: string;
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
  /** See {@link Provider.endpoint}. */
  endpoint?: string;
  /** Where the API key came from (a variable's name), said when the server refuses the key. */
  keySource?: string | undefined;
}

/**
 * A {@link Provider} over an AI SDK v6 language model (`doStream`, one call per turn). Retries are
 * ours: 429/5xx/overloaded/network/stalled failures are retried with jittered exponential backoff
 * or the server's `Retry-After` (the larger), only while nothing of the attempt was shown, and the
 * wait is cancellable. Tool-call ids are made unique in the session ({@link ToolCallIdAssigner}).
 * Never throws: every stream ends in `done` or `error`.
 */
export class AiSdkProvider implements Provider {
  readonly id: string;
  readonly typeId: string;
  readonly imageInput: ImageInput;
  readonly endpoint: string | undefined;
  private readonly options: AiSdkProviderOptions;
  private readonly retry: RetryPolicy;
  /** What each {@link ModelAttempt} takes from this provider. */
  private readonly attemptSettings: AttemptSettings;
  private model: Promise<LanguageModelV3> | undefined;
  private includeUsage = true;

  constructor(options: AiSdkProviderOptions) {
    this.id = options.id;
    this.typeId = options.typeId ?? options.id;
    this.endpoint = options.endpoint;
    this.options = options;
    const toolResults = options.toolResultImages ?? false;
    this.imageInput = { user: options.userImages ?? toolResults, toolResults };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.attemptSettings = {
      model: () => {
        this.model ??= this.options.createModel({ includeUsage: this.includeUsage });
        return this.model;
      },
      callFor: (request, abortSignal) => this.callFor(request, abortSignal),
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      isTerminator: options.isTerminator,
      sharesHugeTexts: options.sharesHugeTexts === true,
      typeId: this.typeId,
      endpoint: options.endpoint,
    };
  }

  /**
   * The request's events, attempt after attempt ({@link ProviderEvents}); never throws.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    const settings = this.attemptSettings;
    const judge: Judge = (outcome, attempt) => this.judge(outcome, attempt, signal);
    // One iterator, as a generator is its own: a second loop over it does not send the request again.
    const events = new ProviderEvents(settings, judge, request, signal);
    return { [Symbol.asyncIterator]: () => events };
  }

  /**
   * What follows a failed attempt: its `retry` event and the wait before the next attempt (none
   * when the request changed instead), or the stream's final `error` event.
   */
  private judge(
    outcome: Extract<AttemptOutcome, { ok: false }>,
    attempt: number,
    signal: AbortSignal,
  ): { event: LlmEvent; retry: boolean; delayMs?: number } {
    if (signal.aborted) {
      return { event: cancelled(), retry: false };
    }
    const { failure } = outcome;
    if (this.includeUsage && /stream_options/i.test(failure.message) && !outcome.shown) {
      // Some OpenAI-compatible servers reject `stream_options`: remember, and ask without it.
      this.includeUsage = false;
      this.model = undefined;
      return { event: retryEvent(attempt, failure, 0), retry: true };
    }
    const maxRetries = Math.min(this.retry.maxRetries, failure.maxRetries ?? Infinity);
    if (!failure.retryable || outcome.shown || attempt >= maxRetries) {
      const said = withKeySource(failure, this.options.keySource);
      return { event: { type: "error", failure: publicFailure(said) }, retry: false };
    }
    const delayMs = delayBeforeRetry(this.retry, attempt, failure);
    if (delayMs === undefined) {
      // Not rounded: 1.4 s must not read "1 s, longer than the 1 s we wait".
      const seconds = (failure.retryAfterMs ?? 0) / 1000;
      const message = `${failure.message} (the server asked to retry after ${seconds} s, longer than the ${this.retry.retryAfterCapMs / 1000} s we wait)`;
      const event: LlmEvent = { type: "error", failure: publicFailure({ ...failure, message }) };
      return { event, retry: false };
    }
    return { event: retryEvent(attempt, failure, delayMs), retry: true, delayMs };
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
        this.endpoint,
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

/** What follows a failed attempt ({@link AiSdkProvider}'s `judge`). */
type Judge = (
  outcome: Extract<AttemptOutcome, { ok: false }>,
  attempt: number,
) => { event: LlmEvent; retry: boolean; delayMs?: number };

/**
 * The events of one {@link AiSdkProvider.stream}: each attempt's events as {@link ModelAttempt}
 * gives them, then after a failed attempt what `judge` says (its `retry` event, a wait, the next
 * attempt; or the final `error`). An iterator of its own, not an async generator: a generator's
 * `yield` awaits its value and queues the request, about a tenth of the heap a streamed delta
 * allocated in a session (bench/notes/turn32.md); here an event is one `then` of the attempt's
 * promise. Never rejects: a failure of its own ends the events with an `error` event. `return`
 * (a reader that stops early) closes the open attempt, as the generator's `finally` did.
 */
class ProviderEvents implements AsyncIterator<LlmEvent> {
  #run: ModelAttempt | undefined;
  #attempt = 0;
  /** Before the next attempt: the wait (ms) a retry asked for. */
  #delayMs: number | undefined;
  #finished = false;

  constructor(
    private readonly settings: AttemptSettings,
    private readonly judge: Judge,
    private readonly request: ModelRequest,
    private readonly signal: AbortSignal,
  ) {}

  next(): Promise<IteratorResult<LlmEvent>> {
    const run = this.#run;
    if (run === undefined) {
      return this.#nextAttempt();
    }
    return run.next().then(this.#stepped, this.#broken);
  }

  return(): Promise<IteratorResult<LlmEvent>> {
    this.#end();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** Starts the next attempt (after the wait a retry asked for), or says the events ended. */
  async #nextAttempt(): Promise<IteratorResult<LlmEvent>> {
    if (this.#finished) {
      return { done: true, value: undefined };
    }
    const delayMs = this.#delayMs;
    this.#delayMs = undefined;
    if (delayMs !== undefined && !(await sleep(delayMs, this.signal))) {
      this.#finished = true;
      return { done: false, value: cancelled() };
    }
    const run = new ModelAttempt(this.settings, this.request, this.signal);
    this.#run = run;
    return run.next().then(this.#stepped, this.#broken);
  }

  readonly #stepped = (step: LlmEvent | AttemptOutcome): IteratorResult<LlmEvent> => {
    if (!("ok" in step)) {
      return { done: false, value: step };
    }
    this.#run?.close();
    this.#run = undefined;
    if (step.ok) {
      this.#finished = true;
      return { done: true, value: undefined };
    }
    try {
      const verdict = this.judge(step, this.#attempt);
      this.#attempt += 1;
      this.#finished = !verdict.retry;
      this.#delayMs = verdict.delayMs;
      return { done: false, value: verdict.event };
    } catch (error) {
      return this.#broken(error);
    }
  };

  /** The contract is "never throws": a bug here still ends the events with an error event. */
  readonly #broken = (error: unknown): IteratorResult<LlmEvent> => {
    this.#end();
    return {
      done: false,
      value: { type: "error", failure: publicFailure(classifyFailure(error)) },
    };
  };

  #end(): void {
    this.#run?.close();
    this.#run = undefined;
    this.#finished = true;
  }
}

/**
 * `failure` naming where the refused key came from, when the server refused it (401, or an
 * `authentication` error in a stream; not a proxy's 407): `TURNLOOP_API_KEY` overrides every
 * provider's own variable, and a stale one there was refused without a word of it (trial r3s46 F5).
 */
function withKeySource(
  failure: ClassifiedFailure,
  keySource: string | undefined,
): ClassifiedFailure {
  if (keySource === undefined || failure.errorType !== "authentication") {
    return failure;
  }
  const override =
    keySource === "TURNLOOP_API_KEY" ? ", which overrides every provider's own key variable" : "";
  const message = `${failure.message} (the API key from ${keySource} was refused${override})`;
  return failure.statusCode === 407 ? failure : { ...failure, message };
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
    ...(failure.unknownModel === undefined ? {} : { unknownModel: failure.unknownModel }),
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

/** When and how long to retry a failed model request (case 18). All times in ms. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubles each retry, with ±20 % jitter. */
  initialDelayMs: number;
  /** Longest backoff delay. */
  maxDelayMs: number;
  /** A `Retry-After` above this fails at once with the server's delay in the message. */
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  retryAfterCapMs: 60_000,
};

/**
 * Backoff in ms for retry number `attempt` (0-based) under `policy`: exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, ±20 % jitter, never below the server's Retry-After;
 * undefined when the Retry-After exceeds `retryAfterCapMs`.
 */
export function delayBeforeRetry(
  policy: RetryPolicy,
  attempt: number,
  failure: ClassifiedFailure,
): number | undefined {
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.retryAfterCapMs) {
    return undefined;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  const jittered = exponential * (0.8 + Math.random() * 0.4);
  return Math.round(Math.max(jittered, failure.retryAfterMs ?? 0));
}
