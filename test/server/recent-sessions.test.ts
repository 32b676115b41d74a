/**
 * What a server remembers of detached and deleted sessions for its words (recent-sessions.ts):
 * the most recent ids only, so its memory stays bounded however many sessions its apps delete
 * or detach in its life (it kept every deleted id until the id was made again).
 */

import { expect, test } from "vitest";
import { RECENT_SESSIONS_KEPT, RecentSessions } from "../../src/server/recent-sessions.js";

test("keeps the most recent ids up to its bound, an id noted again renewed, one made again forgotten", () => {
  const recent = new RecentSessions();
  const ids = Array.from({ length: RECENT_SESSIONS_KEPT + 5 }, (_, index) => `s-${index}`);
  for (const id of ids) {
    recent.add(id);
    // s-1 is deleted again each time: always the most recent but one.
    if (id !== "s-1") {
      recent.add("s-1");
    }
  }
  expect(recent.size).toBe(RECENT_SESSIONS_KEPT);
  expect(ids.filter((id) => !recent.has(id))).toEqual(["s-0", "s-2", "s-3", "s-4", "s-5"]);
  recent.delete("s-1");
  expect([recent.has("s-1"), recent.size]).toEqual([false, RECENT_SESSIONS_KEPT - 1]);
});
