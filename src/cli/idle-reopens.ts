/**
 * How the views of a log draw its reopens, one rule for `sessions show` and the plain face
 * (render.ts), the HTML view and the exports (session-view/fold.ts): which reopens are not drawn
 * as resumes (the log records every reopen's `session.resume` before it knows whether the reopen
 * will work), and where the work a reopen closed is drawn (before it, in the prompt it belongs to).
 */

import type { SessionEvent } from "../events/events.js";
import { INTERRUPTED, isPromptInterrupted } from "../session/open-work.js";

/**
 * The `session.resume` events of reopens after which the conversation did not go on (no prompt,
 * no result given to a call left open, before the next reopen) and that repaired nothing: a
 * reopen that failed after its `session.resume` was written (`-p --resume` whose next write the
 * disk refused), one that only compacted (`sessions compact`: its line says what it did), one
 * that was closed at once. Their `— resumed` line would claim a resume that did not happen.
 * `openNow`: the last reopen is the open of the face drawing the log (plain-face.ts), drawn
 * though nothing follows it yet.
 */
export function idleReopens(
  events: readonly SessionEvent[],
  openNow: boolean,
): ReadonlySet<SessionEvent> {
  const idle = new Set<SessionEvent>();
  let reopen: SessionEvent | undefined;
  for (const event of events) {
    if (event.type === "session.resume") {
      reopen = event.data.repaired.length === 0 ? event : undefined;
      if (reopen !== undefined) {
        idle.add(reopen);
      }
    } else if (
      reopen !== undefined &&
      (event.type === "user.message" || event.type === "tool.execution_complete")
    ) {
      idle.delete(reopen);
      reopen = undefined;
    }
  }
  if (openNow && reopen !== undefined) {
    idle.delete(reopen);
  }
  return idle;
}

/**
 * `items` in the order the views draw them: the events a reopen wrote to close what its log left
 * open (session/open-work.ts `closingEvents`, written right after its `session.resume`: the
 * interrupted results of calls left without one, `assistant.turn_end` with status `interrupted`,
 * a failed `session.compaction_complete`, the `session.error` ending a prompt left between two
 * turns) moved before that `session.resume`, so that a call a
 * kill cut off is drawn with its outcome in its own prompt, before that prompt's stop and the
 * `— resumed` line, as the interactive screen draws it (the call's line stays where it began).
 * Any other order is kept. `eventOf` reads an item's event (items may carry line numbers).
 */
export function repairsBeforeReopens<Item>(
  items: readonly Item[],
  eventOf: (item: Item) => SessionEvent,
): Item[] {
  const ordered: Item[] = [];
  let index = 0;
  while (index < items.length) {
    const item = items[index] as Item;
    index += 1;
    if (eventOf(item).type !== "session.resume") {
      ordered.push(item);
      continue;
    }
    const closing: Item[] = [];
    while (index < items.length && closesOpenWork(eventOf(items[index] as Item))) {
      closing.push(items[index] as Item);
      index += 1;
    }
    ordered.push(...closing, item);
  }
  return ordered;
}

/** Whether `event` has the shape of an event a reopen writes to close open work (open-work.ts). */
function closesOpenWork(event: SessionEvent): boolean {
  switch (event.type) {
    case "tool.execution_complete":
      return event.data.error?.code === "interrupted";
    case "assistant.turn_end":
      return event.data.status === "interrupted";
    case "session.compaction_complete":
      return event.data.success === false && event.data.error === INTERRUPTED;
    case "session.error":
      return isPromptInterrupted(event.data);
    default:
      return false;
  }
}
