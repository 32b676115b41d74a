/** The effects of a batch's tool calls, applied by the loop (loop.ts) before the turn ends. */

import type { EventInput } from "../events/events.js";
import type { ToolCallOutcome } from "./tool-calls.js";

/**
 * Applies the effects of a batch's calls (`ToolEffect`, src/tools/define-tool.ts) in call order, recording
 * `session.plan_updated`, `session.task_complete` and follow-up `user.message`s (source `hook`);
 * a cancelled prompt completes no task and reads no follow-up.
 * `stop` is read by `decideNext` (decide-next.ts).
 */
export function applyEffects(
  outcomes: readonly ToolCallOutcome[],
  emit: (event: EventInput) => void,
  cancelled: boolean,
): void {
  for (const effect of outcomes.flatMap((outcome) => outcome.effects ?? [])) {
    switch (effect.type) {
      case "plan_updated":
        emit({ type: "session.plan_updated", data: { entries: effect.entries } });
        break;
      case "task_complete":
        if (!cancelled) {
          const { summary, success } = effect;
          emit({ type: "session.task_complete", data: { summary, success } });
        }
        break;
      case "stop":
        break;
      case "follow_up":
        if (!cancelled) {
          emit({ type: "user.message", data: { content: effect.content, source: "hook" } });
        }
        break;
      default: {
        const unhandled: never = effect;
        void unhandled;
      }
    }
  }
}
