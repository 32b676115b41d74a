import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { abortFinished } from "../events/errors.js";
import { type ClassifiedFailure, classifyFailure } from "./errors.js";
import { brokenStreamFailure, ENDED_EARLY } from "./failure-words.js";
import { watchBodyBytes } from "./http-response.js";
import {
  collectScheduledGarbage,
  HUGE_MESSAGE_BYTES,
  reclaimAfter,
  shareHugeTexts,
} from "./huge-messages.js";
import { valuesOf } from "./lock-keeping-stream.js";
import type { LlmEvent, ModelRequest } from "./provider.js";
import { ReplyAssembler } from "./reply-assembler.js";
import { StallWatchdog } from "./stall-watchdog.js";
import { generatedOrStreamed } from "./stored-replies.js";
import { ToolCallIdAssigner } from "./tool-call-ids.js";
import { DONE, type ValueSource } from "./value-transform.js";

/**
 * How one attempt ended: fine (its `done` was the last event), or with the failure the retry loop
 * judges (`shown`: whether text or reasoning already reached the user).
 */
export type AttemptOutcome =
  | { ok: true }
  | { ok: false; failure: ClassifiedFailure; shown: boolean };

/** What an attempt takes from its provider. */
export interface AttemptSettings {
  /** The AI SDK model (made on the first request, then kept). */
  model(): Promise<LanguageModelV3>;
  /** The SDK call options of a request, aborted by `abortSignal`. */
  callFor(request: ModelRequest, abortSignal: AbortSignal): LanguageModelV3CallOptions;
  /**
   * No byte of the response's body (through `httpFetch`, http-response.ts `watchBodyBytes`) and
   * no stream part for this long (ms) fails the attempt as `stalled`.
   */
  idleTimeoutMs: number;
  /** Recognises the wire's terminator among raw chunks; absent: the model's finish is trusted. */
  isTerminator: ((rawChunk: unknown) => boolean) | undefined;
  /** Whether the model's `fetch` fills in shared huge texts (huge-messages.ts). */
  sharesHugeTexts: boolean;
  /** The provider's `<provider>:<model>`, which names its wire (answer-shape.ts). */
  typeId: string;
  /** The provider's endpoint, recorded on reasoning parts with provider data (provider.ts). */
  endpoint: string | undefined;
}

/**
 * One model request: `request_start`, its progress events as they come, then `done`; or the
 * failure the retry loop judges. {@link next} gives one event per call, so between the model's
 * stream and the loop each event passes one `then` of the provider's iterator (ai-sdk-provider.ts
 * `ProviderEvents`), where it passed three nested async generators (bench/notes/targets.md,
 * "Provider stream, round 3, session 7"; then one, until bench/notes/turn32.md).
 * {@link close} must follow, however the reading ended.
 *
 * A part `error`, a body that ends before the model's finish, or before the wire's terminator,
 * fails the attempt. Text or reasoning that reached the user counts as shown; a tool call whose
 * arguments were still streaming does not (a retry then loses nothing, issue 11).
 */
export class ModelAttempt {
  readonly #settings: AttemptSettings;
  readonly #request: ModelRequest;
  readonly #signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #watchdog: StallWatchdog;
  readonly #assembler = new ReplyAssembler();
  readonly #toolCallIds: ToolCallIdAssigner;
  #parts: ValueSource<LanguageModelV3StreamPart> | undefined;
  #started = false;
  #ended = false;
  #shown = false;
  /** Code units of text and reasoning streamed so far ({@link #reclaimEachMebibyte}). */
  #streamedLength = 0;
  /** Whether the wire's terminator was seen (or none is awaited). */
  #terminated: boolean;
  #releaseTexts = () => {};
  /** The answer's first bytes ({@link ANSWER_HEAD_BYTES}, decoded), or "" before any. */
  #answerHead = "";
  readonly #abortAttempt = () => this.#controller.abort(this.#signal.reason);

  constructor(settings: AttemptSettings, request: ModelRequest, signal: AbortSignal) {
    this.#settings = settings;
    this.#request = request;
    this.#signal = signal;
    this.#watchdog = new StallWatchdog(settings.idleTimeoutMs, () =>
      this.#controller.abort(new Error("stalled")),
    );
    // Bytes arriving count as progress, parsed or not: one large event takes a while to arrive.
    // The first few KiB are kept: a failure is said from what the answer was (answer-shape.ts).
    watchBodyBytes(this.#controller.signal, (bytes) => {
      this.#watchdog.progress();
      if (this.#answerHead.length < ANSWER_HEAD_BYTES) {
        this.#answerHead += bytes.subarray(0, ANSWER_HEAD_BYTES).toString("utf8");
      }
    });
    this.#toolCallIds = new ToolCallIdAssigner(request.messages);
    // A non-streaming reply is one JSON body: the SDK parsed it whole, so it cannot be cut off
    // unnoticed and has no stream terminator to wait for (issue 27: Anthropic via the Copilot SDK).
    this.#terminated = settings.isTerminator === undefined || request.streaming === false;
    signal.addEventListener("abort", this.#abortAttempt, { once: true });
  }

  /**
   * The next event, or how the attempt ended once it has no more. Never rejects. While the
   * model's stream is read, the promise is {@link #nextEvent}'s own (one async call per event).
   */
  next(): Promise<LlmEvent | AttemptOutcome> {
    const parts = this.#parts;
    if (parts === undefined || this.#ended) {
      return this.#begin();
    }
    // The consumer took the last event: a sign of life too.
    this.#watchdog.progress();
    return this.#nextEvent(parts);
  }

  /** {@link next} before the model's stream is open (`request_start`, the request), or after its end. */
  async #begin(): Promise<LlmEvent | AttemptOutcome> {
    try {
      if (this.#ended) {
        return { ok: true };
      }
      if (!this.#started) {
        this.#started = true;
        await this.#settings.model();
        // The idle clock starts with the request: loading the provider package on a cold start
        // is not the server being silent, and must not turn into a "stall" and a retry.
        this.#watchdog.start();
        return { type: "request_start" };
      }
      this.#watchdog.progress();
      this.#parts = valuesOf(await this.#open());
    } catch (error) {
      return this.#failure(error);
    }
    return this.#nextEvent(this.#parts);
  }

  /** Ends the attempt: stops its clock and closes the connection if it is still being read. */
  close(): void {
    this.#releaseTexts();
    this.#watchdog.stop();
    this.#signal.removeEventListener("abort", this.#abortAttempt);
    abortFinished(this.#controller);
  }

  /** Sends the request: the model's stream of parts (a whole reply as parts, not streaming). */
  async #open(): Promise<ReadableStream<LanguageModelV3StreamPart>> {
    const model = await this.#settings.model();
    // A huge prompt's earlier copies go before the SDK serialises the request (huge-messages.ts).
    collectScheduledGarbage();
    const call = this.#settings.callFor(this.#request, this.#controller.signal);
    if (this.#settings.sharesHugeTexts) {
      const shared = shareHugeTexts(call.prompt);
      call.prompt = shared.value;
      this.#releaseTexts = shared.release;
    }
    if (this.#request.streaming === false) {
      const reply = await generatedOrStreamed(model, call);
      // The server may have streamed anyway (stored-replies.ts): then its stream is the reply.
      return reply.type === "generated" ? generatedParts(reply.result) : reply.stream;
    }
    const { stream } = await model.doStream(call);
    return stream;
  }

  /**
   * Reads parts until one makes an event; at the end of the parts, `done` or the failure (a read
   * that fails included: never rejects).
   */
  async #nextEvent(
    parts: ValueSource<LanguageModelV3StreamPart>,
  ): Promise<LlmEvent | AttemptOutcome> {
    try {
      for (;;) {
        const value = await parts.next();
        if (value === DONE) {
          if (!this.#assembler.finished || !this.#terminated) {
            return { ok: false, failure: await this.#said(cutOffFailure()), shown: this.#shown };
          }
          this.#ended = true;
          return { type: "done", ...this.#assembler.reply(this.#settings.endpoint) };
        }
        const part = this.#toolCallIds.assign(value);
        this.#watchdog.progress();
        if (part.type === "error") {
          await parts.cancel(undefined).catch(() => undefined);
          return {
            ok: false,
            failure: await this.#said(classifyFailure(part.error)),
            shown: this.#shown,
          };
        }
        if (part.type === "raw") {
          this.#terminated ||= this.#settings.isTerminator?.(part.rawValue) === true;
          continue;
        }
        this.#assembler.add(part);
        this.#reclaimEachMebibyte(part);
        const event = this.#request.streaming === false ? undefined : progressEvent(part);
        if (event !== undefined) {
          this.#shown ||= event.type !== "tool_call_start";
          return event;
        }
      }
    } catch (error) {
      return this.#failure(error);
    }
  }

  /**
   * Schedules a full collection (huge-messages.ts `reclaimAfter`) each time the text and
   * reasoning streamed pass another mebibyte ({@link HUGE_MESSAGE_BYTES}); shorter replies never
   * reach it. While a reply streams, what the stream stages hold across a read of 64 KiB (its
   * text and bytes, some 300 events) outlives the young generation and piles up in the old one,
   * which V8 did not collect before the reply ended: a 5 MB answer grew it by about 21 MB, half
   * of it garbage, and `-p` peaked 8–10 MiB higher (bench/notes/memory30.md).
   */
  #reclaimEachMebibyte(part: LanguageModelV3StreamPart): void {
    if (part.type !== "text-delta" && part.type !== "reasoning-delta") {
      return;
    }
    const before = this.#streamedLength;
    this.#streamedLength += part.delta.length;
    if (
      Math.floor(this.#streamedLength / HUGE_MESSAGE_BYTES) >
      Math.floor(before / HUGE_MESSAGE_BYTES)
    ) {
      reclaimAfter(HUGE_MESSAGE_BYTES);
    }
  }

  async #failure(error: unknown): Promise<AttemptOutcome> {
    if (this.#watchdog.stalled && !this.#signal.aborted) {
      // Not rounded: a sub-second limit must not read "no data for 0 s".
      const seconds = this.#settings.idleTimeoutMs / 1000;
      // No stream to stall before the response's headers came (trial r3s36 P3-3).
      const message =
        this.#parts === undefined
          ? `the model server sent no response (not even its headers) within ${seconds} s`
          : `the model stream stalled: no data for ${seconds} s`;
      const failure: ClassifiedFailure = { errorType: "stalled", message, retryable: true };
      return { ok: false, failure, shown: this.#shown };
    }
    return { ok: false, failure: await this.#said(classifyFailure(error)), shown: this.#shown };
  }

  /**
   * `failure` as what the answer's first bytes show it was (answer-shape.ts, imported on a
   * failure only: no request that succeeds loads it, nor does the start-up path).
   */
  async #said(failure: ClassifiedFailure): Promise<ClassifiedFailure> {
    if (this.#answerHead === "" || failure.statusCode !== undefined) {
      return failure;
    }
    const { failureOfAnswer } = await import("./answer-shape.js");
    return failureOfAnswer(failure, this.#answerHead, this.#settings.typeId);
  }
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

/** Bytes of an answer's body kept to read its shape: an error body or a wire's first event. */
const ANSWER_HEAD_BYTES = 4096;

/** A body that ended (cleanly or not) before the wire's end of reply: a network failure. */
function cutOffFailure(): ClassifiedFailure {
  return brokenStreamFailure(ENDED_EARLY);
}
