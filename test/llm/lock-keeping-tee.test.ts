import { describe, expect, test } from "vitest";
import { LockKeepingStream, valuesOf, webStreamOf } from "../../src/llm/lock-keeping-stream.js";
import { DONE, type ValueSource } from "../../src/llm/value-transform.js";
import { type Step, sourceOf } from "../support/value-sources.js";

// Round 3, session 40 (issue 26, figure 3d): the AI SDK's OpenAI models tee a response's parsed
// events and its Anthropic model tees the transformed parts; a `LockKeepingStream`'s own `tee`
// gives two `LockKeepingStream`s (so a branch is piped through the provider's transformer without
// a `TransformStream`). What each branch reads, and what the source is told, must be what
// `ReadableStream`'s own `tee` gives on the same stream.

/**
 * A reader of a branch: `read` reads one value (or the end, or the failure) into `log`; `cancel`
 * settles when the tee says (a case awaits it: one that never settled would time the test out).
 */
interface Branch {
  read(): Promise<void>;
  cancel(reason: string): Promise<void>;
}

function branchReader(
  stream: ReadableStream<number>,
  name: string,
  log: unknown[],
  values: boolean,
): Branch {
  if (values) {
    const source = valuesOf(stream);
    return {
      read: async () => {
        try {
          const value = await source.next();
          log.push(`${name}: ${value === DONE ? "done" : value}`);
        } catch (error) {
          log.push(`${name} failed: ${(error as Error).message}`);
        }
      },
      cancel: (reason) => source.cancel(reason),
    };
  }
  const reader = stream.getReader();
  return {
    read: async () => {
      try {
        const { done, value } = await reader.read();
        log.push(`${name}: ${done ? "done" : value}`);
      } catch (error) {
        log.push(`${name} failed: ${(error as Error).message}`);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/** Each case reads the two branches `a` and `b` in some order. */
const CASES: Record<string, { steps: Step[]; reads: (a: Branch, b: Branch) => Promise<void> }> = {
  "one branch to its end, then the other": {
    steps: [1, 2, 3],
    reads: async (a, b) => {
      for (let index = 0; index < 4; index += 1) {
        await a.read();
      }
      for (let index = 0; index < 5; index += 1) {
        await b.read();
      }
    },
  },
  "in turns": {
    steps: [1, 2, 3],
    reads: async (a, b) => {
      for (let index = 0; index < 4; index += 1) {
        await a.read();
        await b.read();
      }
    },
  },
  "both at once": {
    steps: [1, 2],
    reads: async (a, b) => {
      for (let index = 0; index < 3; index += 1) {
        await Promise.all([a.read(), b.read()]);
      }
    },
  },
  "one cancelled after a value (as the SDK's first-chunk check), the other read to the end": {
    steps: [1, 2, 3],
    reads: async (a, b) => {
      await a.read();
      const cancelled = a.cancel("first seen");
      for (let index = 0; index < 4; index += 1) {
        await b.read();
      }
      // Settles at the source's end: the other branch was not cancelled.
      await cancelled;
    },
  },
  "both cancelled: the source is, with both reasons": {
    steps: [1, 2, 3],
    reads: async (a, b) => {
      await a.read();
      const first = a.cancel("a's reason");
      await b.read();
      await b.cancel("b's reason");
      await first;
    },
  },
  "the source fails: both branches fail, what waited dropped": {
    steps: [1, 2, { fail: "connection reset" }],
    reads: async (a, b) => {
      for (let index = 0; index < 4; index += 1) {
        await a.read();
      }
      await b.read();
      await b.read();
    },
  },
};

async function run(
  name: string,
  tee: (source: ValueSource<number>) => ReadableStream<number>[],
  values: boolean,
) {
  const { steps, reads } = CASES[name] as (typeof CASES)[string];
  const cancelled: unknown[] = [];
  const log: unknown[] = [];
  const [a, b] = tee(sourceOf(steps, cancelled)) as [
    ReadableStream<number>,
    ReadableStream<number>,
  ];
  await reads(branchReader(a, "a", log, values), branchReader(b, "b", log, values));
  await new Promise((resolve) => setImmediate(resolve));
  return { log, sourceCancelled: cancelled };
}

describe("a LockKeepingStream's tee reads as ReadableStream's own", () => {
  test.each(Object.keys(CASES))("%s", async (name) => {
    // The web stream a `LockKeepingStream` makes when a member needs one: its native `tee` is the
    // reference for ours.
    const native = await run(name, (source) => webStreamOf(source).tee(), false);
    const ours = await run(name, (source) => new LockKeepingStream(source).tee(), false);
    const oursByValues = await run(name, (source) => new LockKeepingStream(source).tee(), true);
    expect({ ours, oursByValues }).toEqual({ ours: native, oursByValues: native });
  });

  test("its branches are LockKeepingStreams", () => {
    const branches = new LockKeepingStream(sourceOf([1], [])).tee();
    expect(branches.map((branch) => branch instanceof LockKeepingStream)).toEqual([true, true]);
  });
});
