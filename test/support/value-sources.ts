import { DONE, type ValueSource } from "../../src/llm/value-transform.js";

/** One step of a {@link sourceOf}: a value, or a failure (an `Error` with this message) of its next read. */
export type Step = number | { fail: string };

/**
 * A source of parsed values (src/llm/value-transform.ts `ValueSource`) giving `steps` in order,
 * then its end; each cancel's reason goes into `cancelled`, as `recorded` gives it (by default as
 * it is).
 */
export function sourceOf(
  steps: Step[],
  cancelled: unknown[],
  recorded: (reason: unknown) => unknown = (reason) => reason,
): ValueSource<number> {
  let next = 0;
  return {
    next: async () => {
      const step = steps[next];
      next += 1;
      if (step === undefined) {
        return DONE;
      }
      if (typeof step === "number") {
        return step;
      }
      throw new Error(step.fail);
    },
    cancel: async (reason) => {
      cancelled.push(recorded(reason));
    },
  };
}
