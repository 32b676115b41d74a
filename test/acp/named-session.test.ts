/**
 * A name given to a session (`session.title_changed`: an SDK app's `session.name.set`,
 * server/name-methods.ts) is the editor's title over ACP: `session/load` replays it as ACP v1's
 * `session_info_update` (`title`, `updatedAt`: /work/shared/reference/acp.md §1.7) at its place
 * in the log, and a first prompt after it does not retitle the session with the prompt's words.
 * Before, ACP skipped the event as an SDK app's own (events/event-categories.ts).
 */

import { expect, test } from "vitest";
import { availableCommands } from "../../src/acp/commands.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { Session } from "../../src/session/session.js";
import { AcpHarness, normalise } from "./support.js";

/** `sessionId`, closed by `harness`'s agent, named `title` as `session.name.set` does. */
async function nameSession(harness: AcpHarness, sessionId: string, title: string) {
  const session = await Session.resume(new FileSessionStore(harness.home), sessionId);
  try {
    return session.emit({ type: "session.title_changed", data: { title } });
  } finally {
    await session.close();
  }
}

test("a named session loads with its name as the title, and its first prompt keeps it", async () => {
  let harness = await AcpHarness.start();
  harness.server.enqueue({ text: "the notes" });
  const sessionId = await harness.newSession();
  harness = await harness.restart();
  const named = await nameSession(harness, sessionId, "v2 notes");

  await harness.loadSession(sessionId);
  const replayed = harness.updatesBefore("session/load");
  expect(await harness.prompt(sessionId, "write the release notes")).toEqual({
    stopReason: "end_turn",
  });
  // The name, at the time it was given, is all a log without prompts replays.
  expect(replayed).toEqual([
    { sessionUpdate: "session_info_update", title: "v2 notes", updatedAt: named.timestamp },
  ]);
  // Then the prompt's updates: no title of its own words.
  expect(normalise(harness.updates(sessionId).slice(replayed.length), harness.cwd)).toEqual([
    { sessionUpdate: "available_commands_update", availableCommands: availableCommands() },
    {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "the notes" },
      messageId: "message-1",
    },
    { sessionUpdate: "usage_update", size: 128_000, used: 15 },
  ]);
});
