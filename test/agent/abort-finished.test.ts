import { expect, test } from "vitest";
import { abortFinished } from "../../src/events/errors.js";

/**
 * The controllers of a finished tool call and of a closed model attempt are aborted through
 * `abortFinished` (src/agent/tool-calls.ts, src/llm/model-attempt.ts): their signals must read as
 * a bare `abort()` leaves them, with one reason built for the whole process.
 */
test("a finished controller's reason is the default abort's, built once", () => {
  const bare = new AbortController();
  bare.abort();
  const first = new AbortController();
  const second = new AbortController();
  const heard: unknown[] = [];
  first.signal.addEventListener("abort", () => heard.push(first.signal.reason));
  abortFinished(first);
  abortFinished(second);
  const shape = (reason: unknown) => {
    const error = reason as DOMException;
    return {
      type: error.constructor.name,
      name: error.name,
      message: error.message,
      code: error.code,
    };
  };
  expect([first.signal.aborted, second.signal.aborted]).toEqual([true, true]);
  expect(shape(first.signal.reason)).toEqual(shape(bare.signal.reason));
  expect(shape(first.signal.reason)).toEqual({
    type: "DOMException",
    name: "AbortError",
    message: "This operation was aborted",
    code: 20,
  });
  expect(second.signal.reason).toBe(first.signal.reason);
  expect(heard).toEqual([first.signal.reason]);
});
