import type { Transformer } from "node:stream/web";
import { describe, expect, test } from "vitest";
import { LockKeepingStream, valuesOf } from "../../src/llm/lock-keeping-stream.js";
import { DONE, ValueTransform } from "../../src/llm/value-transform.js";
import { type Step, sourceOf } from "../support/value-sources.js";

// Round 3, session 40 (issue 26, figure 3d): the bundle's AI SDK providers make a `ValueTransform`
// where they made a `TransformStream` (scripts/providers-as-bundled.mjs), and a parsed response
// (a `LockKeepingStream`) piped through it runs the transformer itself. What a reader gets must be
// what Node's `TransformStream` piped the same way gives: the values, the failure, what the
// transformer's `cancel` and the source's `cancel` are told.

interface Run {
  /** What was read, in order, then `done` or the failure's message. */
  read: unknown[];
  /** The source's cancel reasons (a reason that is an error: its kind). */
  sourceCancelled: unknown[];
  /** The transformer's calls: start, flush, cancel (with its reason). */
  calls: unknown[];
}

const shape = (reason: unknown) => (reason instanceof Error ? reason.name : reason);

/** A transformer of these cases, logging its start, flush and cancel into `calls`. */
type Case = (calls: unknown[]) => Transformer<number, unknown>;

const CASES: Record<string, { steps: Step[]; transformer: Case; cancelAfter?: number }> = {
  "no transform: values as they are": { steps: [1, 2, 3], transformer: () => ({}) },
  "start, two values a value, flush": {
    steps: [1, 2, 3],
    transformer: (calls) => ({
      start: (controller) => {
        calls.push("start");
        controller.enqueue("first");
      },
      transform: (value, controller) => {
        controller.enqueue(value * 10);
        controller.enqueue(value * 10 + 1);
      },
      flush: (controller) => {
        calls.push("flush");
        controller.enqueue("last");
      },
      cancel: (reason: unknown) => {
        calls.push(["cancel", shape(reason)]);
      },
    }),
  },
  "a transform that enqueues nothing for some values, async": {
    steps: [1, 2, 3, 4],
    transformer: () => ({
      transform: async (value, controller) => {
        await Promise.resolve();
        if (value % 2 === 0) {
          controller.enqueue(value);
        }
      },
    }),
  },
  "a transform that throws": {
    steps: [1, 2, 3],
    transformer: (calls) => ({
      transform: (value, controller) => {
        if (value === 2) {
          throw new Error("bad value");
        }
        controller.enqueue(value);
      },
      flush: () => {
        calls.push("flush");
      },
      cancel: (reason: unknown) => {
        calls.push(["cancel", shape(reason)]);
      },
    }),
  },
  "controller.error": {
    steps: [1, 2, 3],
    transformer: () => ({
      transform: (value, controller) => {
        controller.enqueue(value);
        if (value === 2) {
          controller.error(new RangeError("refused"));
        }
      },
    }),
  },
  "controller.terminate after two values": {
    steps: [1, 2, 3],
    transformer: (calls) => ({
      transform: (value, controller) => {
        controller.enqueue(value);
        if (value === 2) {
          controller.enqueue(20);
          controller.terminate();
        }
      },
      flush: () => {
        calls.push("flush");
      },
    }),
  },
  "the source fails after two values": {
    steps: [1, 2, { fail: "connection reset" }],
    transformer: (calls) => ({
      transform: (value, controller) => {
        controller.enqueue(value);
      },
      cancel: (reason: unknown) => {
        calls.push(["cancel", shape(reason)]);
      },
    }),
  },
  "flush throws": {
    steps: [1],
    transformer: () => ({
      transform: (value, controller) => {
        controller.enqueue(value);
      },
      flush: () => {
        throw new TypeError("no end");
      },
    }),
  },
  "the reader cancels after the first value": {
    steps: [1, 2, 3],
    cancelAfter: 1,
    transformer: (calls) => ({
      transform: (value, controller) => {
        controller.enqueue(value);
      },
      cancel: (reason: unknown) => {
        calls.push(["cancel", shape(reason)]);
      },
    }),
  },
};

type Reading = (stream: ReadableStream<unknown>, cancelAfter?: number) => Promise<unknown[]>;

const byReader: Reading = async (stream, cancelAfter) => {
  const reader = stream.getReader();
  const read: unknown[] = [];
  try {
    for (;;) {
      if (read.length === cancelAfter) {
        await reader.cancel("stop");
        return [...read, "cancelled"];
      }
      const { done, value } = await reader.read();
      if (done) {
        return [...read, "done"];
      }
      read.push(value);
    }
  } catch (error) {
    return [...read, `failed: ${(error as Error).message}`];
  }
};

const byValues: Reading = async (stream, cancelAfter) => {
  const values = valuesOf(stream);
  const read: unknown[] = [];
  try {
    for (;;) {
      if (read.length === cancelAfter) {
        await values.cancel("stop");
        return [...read, "cancelled"];
      }
      const value = await values.next();
      if (value === DONE) {
        return [...read, "done"];
      }
      read.push(value);
    }
  } catch (error) {
    return [...read, `failed: ${(error as Error).message}`];
  }
};

async function run(
  name: string,
  makeTransform: (transformer: Transformer<number, unknown>) => {
    readable: ReadableStream<unknown>;
    writable: WritableStream<number>;
  },
  reading: Reading,
): Promise<Run> {
  const { steps, transformer, cancelAfter } = CASES[name] as (typeof CASES)[string];
  const sourceCancelled: unknown[] = [];
  const calls: unknown[] = [];
  const parsed = new LockKeepingStream(sourceOf(steps, sourceCancelled, shape));
  const read = await reading(parsed.pipeThrough(makeTransform(transformer(calls))), cancelAfter);
  // What a real pipe passes on after the last read (a cancel, an abort) takes a few turns.
  await new Promise((resolve) => setImmediate(resolve));
  return { read, sourceCancelled, calls };
}

describe("a parsed response piped through a ValueTransform reads as through a TransformStream", () => {
  test.each(Object.keys(CASES))("%s", async (name) => {
    const node = await run(name, (transformer) => new TransformStream(transformer), byReader);
    const direct = await run(name, (transformer) => new ValueTransform(transformer), byReader);
    const directValues = await run(
      name,
      (transformer) => new ValueTransform(transformer),
      byValues,
    );
    expect({ direct, directValues }).toEqual({ direct: node, directValues: node });
  });

  test("used as a TransformStream, it is one (a stream that is not ours piped through it)", async () => {
    const transform = new ValueTransform<number, number>({
      transform: (value, controller) => controller.enqueue(value + 1),
    });
    const plain = new ReadableStream<number>({
      start(controller) {
        controller.enqueue(1);
        controller.enqueue(2);
        controller.close();
      },
    });
    expect(await byReader(plain.pipeThrough(transform))).toEqual([2, 3, "done"]);
    expect(transform.takeTransformer()).toBeUndefined();
  });
});
