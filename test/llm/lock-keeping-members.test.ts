import { describe, expect, test } from "vitest";
import { LockKeepingStream, valuesOf } from "../../src/llm/lock-keeping-stream.js";
import { DONE } from "../../src/llm/value-transform.js";
import { sourceOf } from "../support/value-sources.js";

// Round 3, session 44 (issue 26, figure 3c): a `LockKeepingStream` makes its web stream only when
// one of `ReadableStream`'s members needs it. Whatever a member is used, a reader sees what the
// web stream over the same source gives, and a taken stream refuses as a locked one does.

/** What each way of reading gives of a source of 1, 2, 3 that fails after them, and its cancels. */
async function readAll(
  read: (stream: LockKeepingStream<number>) => Promise<unknown[]>,
): Promise<{ read: unknown[]; cancelled: unknown[] }> {
  const cancelled: unknown[] = [];
  const stream = new LockKeepingStream(sourceOf([1, 2, 3, { fail: "cut" }], cancelled));
  return { read: await read(stream), cancelled };
}

describe("a LockKeepingStream's ReadableStream members", () => {
  test("a reader, async iteration and pipeTo read the values, then the failure", async () => {
    const byReader = await readAll(async (stream) => {
      const reader = stream.getReader();
      const seen: unknown[] = [stream.locked];
      for (;;) {
        const result = await reader.read().catch((error: Error) => `failed: ${error.message}`);
        seen.push(result);
        if (typeof result === "string" || result.done) {
          return seen;
        }
      }
    });
    expect(byReader).toEqual({
      read: [
        true,
        { done: false, value: 1 },
        { done: false, value: 2 },
        { done: false, value: 3 },
        "failed: cut",
      ],
      cancelled: [],
    });
    const byIteration = await readAll(async (stream) => {
      const seen: unknown[] = [];
      try {
        for await (const value of stream) {
          seen.push(value);
        }
      } catch (error) {
        seen.push(`failed: ${(error as Error).message}`);
      }
      return seen;
    });
    expect(byIteration).toEqual({ read: [1, 2, 3, "failed: cut"], cancelled: [] });
    const byPipe = await readAll(async (stream) => {
      const seen: unknown[] = [];
      const written = new WritableStream<number>({ write: (value) => void seen.push(value) });
      await stream.pipeTo(written).catch((error: Error) => seen.push(`failed: ${error.message}`));
      return seen;
    });
    expect(byPipe).toEqual({ read: [1, 2, 3, "failed: cut"], cancelled: [] });
  });

  test("cancel reaches the source once; a taken stream refuses every member as a locked one", async () => {
    const cancelled: unknown[] = [];
    const unread = new LockKeepingStream(sourceOf([1], cancelled));
    await unread.cancel("not wanted");
    expect(cancelled).toEqual(["not wanted"]);

    const taken = new LockKeepingStream(sourceOf([1], cancelled));
    const values = valuesOf(taken);
    expect(taken.locked).toBe(true);
    const refusals = [
      () => taken.getReader(),
      () => taken.values(),
      () => taken.tee(),
      () => taken.pipeThrough(new TransformStream(), {}),
      () => valuesOf(taken),
    ].map((use) => {
      try {
        use();
        return "used";
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    const rejections = await Promise.all([
      taken.cancel("late").catch((error: Error) => `${error.name}: ${error.message}`),
      taken.pipeTo(new WritableStream()).catch((error: Error) => `${error.name}: ${error.message}`),
    ]);
    const locked = "TypeError: Invalid state: ReadableStream is locked";
    expect({ refusals, rejections }).toEqual({
      refusals: [locked, locked, locked, locked, locked],
      rejections: [locked, locked],
    });
    expect([await values.next(), await values.next()]).toEqual([1, DONE]);
    expect(cancelled).toEqual(["not wanted"]);
  });

  test("a stream read through a reader first is locked for valuesOf, as a web stream is", async () => {
    const stream = new LockKeepingStream(sourceOf([1, 2], []));
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: 1 });
    expect(() => valuesOf(stream)).toThrow(TypeError);
    reader.releaseLock();
    const values = valuesOf(stream);
    expect([await values.next(), await values.next(), stream.locked]).toEqual([2, DONE, true]);
  });
});
