import type {
  ReadableStreamAsyncIterator,
  ReadableStreamGetReaderOptions,
  ReadableStreamReader,
  StreamPipeOptions,
} from "node:stream/web";
import { DONE, transformedSource, type ValueSource, ValueTransform } from "./value-transform.js";

/**
 * A `ReadableStream` whose `pipeThrough` (without options) never releases a lock: the first
 * `releaseLock` of a reader and of a writer in a process makes Node 20 build its released-lock
 * error, and stripping that error's stack creates a `vm` context each time (about 5 and 9 M
 * instructions, 3 % of a `-p` run; bench/notes/targets.md, round 3 session 18). `pipeTo`, which
 * `pipeThrough` runs, releases both at the stream's end. The AI SDK's providers pipe the parsed
 * events through their own `TransformStream` (`response.pipeThrough(…)`). When that is a
 * {@link ValueTransform} (the bundle's providers: scripts/providers-as-bundled.mjs), its
 * transformer runs on this stream's values as they are read ({@link transformedSource}), and the
 * result is another `LockKeepingStream`: no web stream between the parsed events and their
 * reader. With a real `TransformStream`, the events are written to its writable side as `pipeTo`
 * writes them (the writer's `ready` awaited before each write), the transform's readable side is
 * returned, and each end's failure reaches the other as `pipeTo`'s defaults pass it on (the
 * source's error aborts the writable side, the writable side's error cancels the source, the
 * source's end closes it). The values are taken from the {@link ValueSource} itself, not read back
 * out of this stream's queue: a read and an enqueue per value were about a tenth of a tool turn's
 * heap allocation (figure 3d, bench/notes/turn19.md). With options, `ReadableStream`'s own.
 *
 * It has `ReadableStream`'s members, but the web stream behind them (a native object on Node 20,
 * made transferable: about 25 µs of the main thread each, two a model request) is made only when
 * one of them needs it (`getReader`, `pipeTo`, `values`, async iteration, `cancel`, `pipeThrough`
 * with options): piped through a `ValueTransform`, teed, or taken with {@link valuesOf}, as every
 * model response of the bundle is, it never is (bench/notes/turn44.md). So it is no
 * `instanceof ReadableStream`, and a Node function that checks for a web stream
 * (`Readable.fromWeb`) refuses it.
 */
export class LockKeepingStream<T> implements ReadableStream<T> {
  readonly #source: ValueSource<T>;
  /** The web stream over {@link #source}, once a member needed it. */
  #stream: ReadableStream<T> | undefined;
  /** Whether the source was taken ({@link takeValues}): locked, as by a reader. */
  #taken = false;

  constructor(source: ValueSource<T>) {
    this.#source = source;
  }

  /** The web stream over the source, made at its first use ({@link LockKeepingStream}). */
  #web(): ReadableStream<T> {
    this.#stream ??= webStreamOf(this.#source);
    return this.#stream;
  }

  get locked(): boolean {
    return this.#taken || (this.#stream?.locked ?? false);
  }

  /** @throws TypeError when the stream is locked, as `ReadableStream`'s. */
  getReader(options: { mode: "byob" }): ReadableStreamBYOBReader;
  getReader(): ReadableStreamDefaultReader<T>;
  getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamReader<T>;
  getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamReader<T> {
    this.#refuseIfTaken();
    return this.#web().getReader(options);
  }

  /** As `ReadableStream`'s: rejects with a TypeError when the stream is locked. */
  async cancel(reason?: unknown): Promise<void> {
    this.#refuseIfTaken();
    return this.#web().cancel(reason);
  }

  /** As `ReadableStream`'s: rejects with a TypeError when the stream is locked. */
  async pipeTo(destination: WritableStream<T>, options?: StreamPipeOptions): Promise<void> {
    this.#refuseIfTaken();
    return this.#web().pipeTo(destination, options);
  }

  values(options?: { preventCancel?: boolean }): ReadableStreamAsyncIterator<T> {
    this.#refuseIfTaken();
    return this.#web().values(options);
  }

  [Symbol.asyncIterator](options?: { preventCancel?: boolean }): ReadableStreamAsyncIterator<T> {
    return this.values(options);
  }

  /** Its values without a reader's reads: the stream is locked, as it is by a reader. */
  takeValues(): ValueSource<T> {
    this.#refuseIfTaken();
    // A web stream made already is locked too (its reader is never released): `locked` says so.
    this.#stream?.getReader();
    this.#taken = true;
    return this.#source;
  }

  /**
   * Two streams of this stream's values, each a `LockKeepingStream` (so either can be piped
   * through a {@link ValueTransform} directly), as `ReadableStream`'s `tee` gives them: a value
   * read by one branch waits for the other; the source is read once per value; its end reaches
   * both after what waits, its failure at once (what waited is dropped); it is cancelled once both
   * branches were, with both reasons (an array), and a branch's cancel settles then (or at the
   * source's end or failure). The AI SDK's OpenAI models tee the parsed events (to look for an error
   * before any output), its Anthropic model the transformed parts (for the first part).
   */
  tee(): [ReadableStream<T>, ReadableStream<T>] {
    const [first, second] = teeSources(this.takeValues());
    return [new LockKeepingStream(first), new LockKeepingStream(second)];
  }

  pipeThrough<U>(
    transform: { writable: WritableStream<T>; readable: ReadableStream<U> },
    options?: StreamPipeOptions,
  ): ReadableStream<U> {
    if (options !== undefined) {
      this.#refuseIfTaken();
      return this.#web().pipeThrough(transform, options);
    }
    const transformer =
      transform instanceof ValueTransform ? transform.takeTransformer() : undefined;
    if (transformer !== undefined) {
      return new LockKeepingStream<U>(transformedSource(this.takeValues(), transformer));
    }
    // Locked and never read: its source is written to the transform directly.
    const source = this.takeValues();
    const writer = transform.writable.getWriter();
    void writer.closed.then(undefined, (error: unknown) => source.cancel(error).catch(ignored));
    void pumpKeepingLocks(source, writer);
    return transform.readable;
  }

  /** @throws TypeError when the source was taken, as `ReadableStream`'s for a locked stream. */
  #refuseIfTaken(): void {
    if (this.#taken) {
      throw new TypeError("Invalid state: ReadableStream is locked");
    }
  }
}

/**
 * The values of `stream` one at a time, the stream locked: a {@link LockKeepingStream}'s are
 * taken from its source (no read request, no result object per value), any other's through a
 * reader. `next` rejects with the stream's failure; `cancel` cancels the stream.
 */
export function valuesOf<T>(stream: ReadableStream<T>): ValueSource<T> {
  if (stream instanceof LockKeepingStream && !stream.locked) {
    return (stream as LockKeepingStream<T>).takeValues();
  }
  const reader = stream.getReader();
  return {
    next: async () => {
      const { done, value } = await reader.read();
      return done ? DONE : (value as T);
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/** A branch of {@link teeSources}: the values read by the other branch and not yet by this one. */
interface TeeBranch<T> {
  waiting: T[];
  cancelled: { reason: unknown } | undefined;
}

/** Two sources of `source`'s values: see {@link LockKeepingStream.tee}. */
function teeSources<T>(source: ValueSource<T>): [ValueSource<T>, ValueSource<T>] {
  const shared = new TeeReads(source);
  const branch = (index: 0 | 1): ValueSource<T> => ({
    next: () => shared.next(index),
    cancel: (reason) => shared.cancel(index, reason),
  });
  return [branch(0), branch(1)];
}

/** The reads of a {@link teeSources}'s source, shared by its two branches. */
class TeeReads<T> {
  readonly #source: ValueSource<T>;
  readonly #branches: [TeeBranch<T>, TeeBranch<T>] = [
    { waiting: [], cancelled: undefined },
    { waiting: [], cancelled: undefined },
  ];
  #reading: Promise<void> | undefined;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #settleCancels: ((cancelled: Promise<void>) => void) | undefined;
  /** What a branch's cancel answers: settled once both were cancelled, or the source ended or failed. */
  readonly #cancelsSettled = new Promise<void>((resolve) => {
    this.#settleCancels = resolve;
  });

  constructor(source: ValueSource<T>) {
    this.#source = source;
  }

  next(index: 0 | 1): Promise<T | typeof DONE> {
    const branch = this.#branches[index];
    // A failure drops what waited, as it empties an errored stream's queue.
    if (this.#failure !== undefined) {
      return Promise.reject(this.#failure.error);
    }
    if (branch.waiting.length > 0) {
      return Promise.resolve(branch.waiting.shift() as T);
    }
    if (this.#ended || branch.cancelled !== undefined) {
      return Promise.resolve(DONE);
    }
    return this.#read().then(() => this.next(index));
  }

  cancel(index: 0 | 1, reason: unknown): Promise<void> {
    const branch = this.#branches[index];
    branch.cancelled ??= { reason };
    branch.waiting = [];
    const [first, second] = this.#branches;
    if (first.cancelled !== undefined && second.cancelled !== undefined) {
      const over = this.#ended || this.#failure !== undefined;
      const reasons = [first.cancelled.reason, second.cancelled.reason];
      this.#settleCancels?.(over ? Promise.resolve() : this.#source.cancel(reasons));
    }
    return this.#cancelsSettled;
  }

  /** One read of the source for both branches (the one under way, if there is one). */
  #read(): Promise<void> {
    this.#reading ??= this.#source.next().then(
      (value) => {
        this.#reading = undefined;
        if (value === DONE) {
          this.#ended = true;
          // As a tee's: a branch's cancel settles once the source ended or failed, too.
          this.#settleCancels?.(Promise.resolve());
          return;
        }
        for (const branch of this.#branches) {
          if (branch.cancelled === undefined) {
            branch.waiting.push(value);
          }
        }
      },
      (error: unknown) => {
        this.#reading = undefined;
        this.#failure = { error };
        this.#settleCancels?.(Promise.resolve());
      },
    );
    return this.#reading;
  }
}

/**
 * Writes what `source` gives to `writer` until either ends, waiting for the writer's `ready`
 * before each read of the source (and so before each write), as `pipeTo` does; see
 * {@link LockKeepingStream}. `ready` is awaited only while the stream wants no more
 * (`desiredSize` ≤ 0, or null once it failed: then `ready` rejects, the pump stops, and the
 * writer's `closed` cancels the source).
 */
async function pumpKeepingLocks<T>(
  source: ValueSource<T>,
  writer: WritableStreamDefaultWriter<T>,
): Promise<void> {
  for (;;) {
    if ((writer.desiredSize ?? 0) <= 0) {
      try {
        await writer.ready;
      } catch {
        return;
      }
    }
    let value: T | typeof DONE;
    try {
      value = await source.next();
    } catch (error) {
      await writer.abort(error).catch(ignored);
      return;
    }
    if (value === DONE) {
      await writer.close().catch(ignored);
      return;
    }
    // Not awaited, as `pipeTo` does not: a failed write errors the writable side, which the next
    // `ready` and `closed` report.
    writer.write(value).catch(ignored);
  }
}

/** For a promise whose failure another path reports. */
function ignored(): void {}

/**
 * A web `ReadableStream` over `source`, pulled one value per read waiting: at a read it takes the
 * source's next value (closing at {@link DONE}); its `cancel` cancels the source. Its
 * `highWaterMark` is 0, so nothing is pulled to fill a queue: piped, nothing else takes values
 * from the source beside the pipe.
 */
export function webStreamOf<T>(source: ValueSource<T>): ReadableStream<T> {
  return new ReadableStream<T>(
    {
      // A pull that enqueues nothing would not be called again for the read waiting on it: the
      // source gives at least one value unless it ended.
      pull: async (controller) => {
        const value = await source.next();
        if (value === DONE) {
          controller.close();
        } else {
          controller.enqueue(value);
        }
      },
      cancel: (reason) => source.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
