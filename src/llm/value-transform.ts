import type {
  QueuingStrategy,
  Transformer,
  TransformStreamDefaultController,
} from "node:stream/web";

/**
 * What a {@link ValueSource} gives once it has no more values.
 */
export const DONE: unique symbol = Symbol("done");

/**
 * Values taken one at a time without a web stream's reader: {@link next} gives the next value, or
 * {@link DONE} once the source ended; it rejects (or throws) with the source's failure. One
 * promise per value, no wrapper object: the pump ran per streamed delta (bench/notes/relay33.md).
 * {@link cancel} stops the source.
 */
export interface ValueSource<T> {
  next(): Promise<T | typeof DONE>;
  cancel(reason: unknown): Promise<void>;
}

/**
 * A `TransformStream` that is made only when something uses it as one (its `readable` or
 * `writable`), so that a stream of turnloop's own that it is piped from can run its transformer
 * directly instead (src/llm/lock-keeping-stream.ts, `LockKeepingStream.pipeThrough`, through
 * {@link transformedSource}). scripts/providers-as-bundled.mjs gives the AI SDK's provider
 * packages this class as their `TransformStream`: each provider pipes a response's parsed events
 * through one (`response.pipeThrough(new TransformStream({start, transform, flush}))` in
 * `doStream`), and that stage's writes, backpressure promises and reads, made transferable on
 * Node 20, were about a fifth of a tool turn's heap allocation (figure 3d, bench/notes/turn40.md).
 * The arguments are `TransformStream`'s; the transformer's `start` runs when the stream is first
 * used or piped, not when it is made.
 */
export class ValueTransform<I, O> {
  readonly #transformer: Transformer<I, O>;
  readonly #writableStrategy: QueuingStrategy<I> | undefined;
  readonly #readableStrategy: QueuingStrategy<O> | undefined;
  #stream: TransformStream<I, O> | undefined;
  #taken = false;

  constructor(
    transformer: Transformer<I, O> = {},
    writableStrategy?: QueuingStrategy<I>,
    readableStrategy?: QueuingStrategy<O>,
  ) {
    this.#transformer = transformer;
    this.#writableStrategy = writableStrategy;
    this.#readableStrategy = readableStrategy;
  }

  get readable(): ReadableStream<O> {
    return this.#made().readable;
  }

  get writable(): WritableStream<I> {
    return this.#made().writable;
  }

  /**
   * The transformer, for a source that runs it itself ({@link transformedSource}): given once,
   * and only while no `TransformStream` was made of it (then undefined).
   */
  takeTransformer(): Transformer<I, O> | undefined {
    if (this.#stream !== undefined || this.#taken) {
      return undefined;
    }
    this.#taken = true;
    return this.#transformer;
  }

  /** @throws TypeError once the transformer was taken: its `start` ran for another source. */
  #made(): TransformStream<I, O> {
    if (this.#taken) {
      throw new TypeError("This transform was piped already");
    }
    this.#stream ??= new TransformStream<I, O>(
      this.#transformer,
      this.#writableStrategy,
      this.#readableStrategy,
    );
    return this.#stream;
  }
}

/**
 * The values of `source` through `transformer`, as a `TransformStream` with the transformer
 * passes them on when it is piped from a stream of `source`'s values and read, with no stream
 * between: `start` first (awaited before the first `transform`), then `transform` for each value
 * read from `source` only when the values it enqueued before were all taken, `flush` at the
 * source's end. A failure of `source` is the result's failure, and is given to the transformer's
 * `cancel`; `transform` or `flush` throwing (or rejecting), or `controller.error(reason)`, fails
 * the result with that reason and cancels `source`; `controller.terminate()` ends the result after
 * what was enqueued and cancels `source`. Cancelling the result calls the transformer's `cancel`,
 * then cancels `source` (as Node 20's `TransformStream` does, piped as `pipeTo` pipes). What a
 * failed or cancelled result had queued is dropped, as a stream's queue is.
 */
export function transformedSource<I, O>(
  source: ValueSource<I>,
  transformer: Transformer<I, O>,
): ValueSource<O> {
  const cancelSource = (reason: unknown) => {
    source.cancel(reason).catch(ignored);
  };
  const values = new ValueQueue<O>(cancelSource);
  let started: unknown = transformer.start?.(values.controller);
  const transform =
    transformer.transform ?? ((value: I) => values.controller.enqueue(value as unknown as O));
  // Plain functions and `then`, no async function: a suspended async function's frame, kept per
  // value read, was most of what this allocated (bench/notes/turn40.md).
  /** The next value: from the queue, else the source's next through the transformer. @throws its failure. */
  const following = (): Pending<O> => {
    const taken = values.take();
    if (taken !== EMPTY) {
      return taken;
    }
    if (started !== undefined) {
      const starting = started;
      started = undefined;
      return Promise.resolve(starting).then(following);
    }
    return source.next().then(transformed, sourceFailed);
  };
  const transformed = (value: I | typeof DONE): Pending<O> => {
    values.reading = true;
    const step = transformerStep(transformer, transform, values.controller, value);
    return isThenable(step)
      ? Promise.resolve(step).then((failure) => settled(value, failure))
      : settled(value, step);
  };
  /** After the transformer's call for `value`: its failure (what it threw or rejected with), if any. */
  const settled = (value: I | typeof DONE, failure: { error: unknown } | undefined): Pending<O> => {
    values.reading = false;
    if (failure !== undefined) {
      values.controller.error(failure.error);
    } else if (value === DONE) {
      values.end();
    }
    return following();
  };
  // As `pipeTo` passes it on: the transform's writable side aborted, then the source cancelled.
  const sourceFailed = (error: unknown): Pending<O> => {
    values.fail(error);
    cancelTransformer(transformer, error);
    cancelSource(error);
    return following();
  };
  return {
    next: () => promised(following),
    cancel: (reason) => {
      values.cancel();
      cancelTransformer(transformer, reason);
      return source.cancel(reason);
    },
  };
}

/** What `take` answers, as a promise: rejected with what it threw. */
function promised<O>(take: () => Pending<O>): Promise<O | typeof DONE> {
  try {
    return Promise.resolve(take());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The transformer's call for `value` (`flush` at {@link DONE}, else `transform`): undefined once it
 * returned, `{ error }` when it threw or rejected; a promise of that only when it returned one (a
 * wait for `undefined` would cost a promise a value).
 */
function transformerStep<I, O>(
  transformer: Transformer<I, O>,
  transform: NonNullable<Transformer<I, O>["transform"]>,
  controller: TransformStreamDefaultController<O>,
  value: I | typeof DONE,
): StepFailure | PromiseLike<StepFailure> {
  let result: unknown;
  try {
    result = value === DONE ? transformer.flush?.(controller) : transform(value, controller);
  } catch (error) {
    return { error };
  }
  return isThenable(result)
    ? Promise.resolve(result).then(
        () => undefined,
        (error: unknown) => ({ error }),
      )
    : undefined;
}

/** A transformer call's failure: what it threw or rejected with; undefined when it did not fail. */
type StepFailure = { error: unknown } | undefined;

/** A value, the end, or a promise of either. */
type Pending<O> = O | typeof DONE | Promise<O | typeof DONE>;

/** What {@link ValueQueue.take} answers when nothing is queued and the queue is still open. */
const EMPTY: unique symbol = Symbol("empty");

/**
 * The values a transformer enqueued and not yet taken, and its controller: whether the result
 * still takes values, ended, or failed (and with what).
 */
class ValueQueue<O> {
  readonly controller: TransformStreamDefaultController<O>;
  #values: O[] = [];
  #head = 0;
  #ended = false;
  #failure: { reason: unknown } | undefined;
  /**
   * Whether a read waits for what the transformer enqueues now: the first such value is that
   * read's, as a stream hands a chunk to a waiting read at once, and a failure after it keeps it.
   */
  reading = false;
  /** Whether the value at the head was handed to a waiting read (see {@link reading}). */
  #headHanded = false;

  constructor(cancelSource: (reason: unknown) => void) {
    const queue = this;
    this.controller = {
      get desiredSize() {
        return queue.#failure === undefined ? 0 : null;
      },
      enqueue(value: O) {
        if (queue.#ended || queue.#failure !== undefined) {
          throw new TypeError("The transform stream is closed or errored");
        }
        if (queue.reading && queue.#head === queue.#values.length) {
          queue.#headHanded = true;
        }
        queue.#values.push(value);
      },
      error(reason: unknown) {
        if (queue.#failure === undefined) {
          queue.fail(reason);
          cancelSource(reason);
        }
      },
      terminate() {
        queue.#ended = true;
        cancelSource(new TypeError("The transform stream was terminated"));
      },
    };
  }

  /** The next value; DONE once ended and taken; EMPTY while open with none. @throws its failure. */
  take(): O | typeof DONE | typeof EMPTY {
    if (this.#failure !== undefined && !this.#headHanded) {
      throw this.#failure.reason;
    }
    if (this.#head < this.#values.length) {
      const value = this.#values[this.#head] as O;
      this.#head += 1;
      this.#headHanded = false;
      if (this.#head === this.#values.length) {
        this.#values.length = 0;
        this.#head = 0;
      }
      return value;
    }
    return this.#ended ? DONE : EMPTY;
  }

  /** Ends the queue: once what it holds is taken, {@link take} answers DONE. */
  end(): void {
    this.#ended = true;
  }

  /**
   * Fails the result with `reason` (the first failure stays); the values queued are dropped, but
   * for one handed to a waiting read.
   */
  fail(reason: unknown): void {
    this.#failure ??= { reason };
    this.#values.length = this.#headHanded ? this.#head + 1 : this.#head;
  }

  /** After a cancel: no more values. */
  cancel(): void {
    this.#values.length = 0;
    this.#head = 0;
    this.#headHanded = false;
    this.#ended = true;
  }
}

/**
 * The transformer's `cancel` with `reason`, if it has one; what it throws or rejects with is
 * dropped (the result fails or ends with the reason that called it).
 */
function cancelTransformer<I, O>(transformer: Transformer<I, O>, reason: unknown): void {
  // Node 20's TransformStream calls it; @types/node's Transformer does not name it.
  const cancellable = transformer as { cancel?: (reason: unknown) => unknown };
  try {
    const result = cancellable.cancel?.(reason);
    if (isThenable(result)) {
      Promise.resolve(result).catch(ignored);
    }
  } catch {}
}

/** Whether `value` is a promise or another thenable (what `await` waits for). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** For a promise whose failure another path reports. */
function ignored(): void {}
