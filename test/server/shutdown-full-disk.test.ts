/**
 * A server session closing on a full disk (server/shutdown-metrics.ts `recordShutdown`): its
 * `session.shutdown` cannot be stored. The server says on stderr that it was not recorded, and
 * nothing else is lost: every event of the prompt before stays in the log. With an event held
 * back before it (a rename while the disk is full), the shutdown's first commit failed and the
 * server recorded no shutdown at all, naming only the rename as lost. A real 1 MiB tmpfs as
 * `TURNLOOP_HOME`, filled after the prompt; the server process closes at its stdin's end.
 */

import { join } from "node:path";
import { describe, expect } from "vitest";
import { fakeModelEnvironment, test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import { loggedTypes, serverSession } from "../support/storage-refusals.js";

/** The stored events of the prompt answered before the disk fills. */
const ANSWERED = [
  "session.start",
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
];

describe.runIf(CAN_MOUNT)(needingMount("a server session closing on a full disk"), () => {
  const disk = useFullDisk(1024, false);

  test("says session.shutdown was not recorded; the prompt's events stay", async ({
    model,
    repository,
  }) => {
    const { home } = disk;
    model.enqueue({ text: "Answered." });
    const { child, peer, stderr, exit, prompt, sessionId } = await serverSession(
      fakeModelEnvironment(home, model),
      repository,
    );
    try {
      const seen = await prompt("hello");
      expect(seen.at(-1)?.type).toBe("session.idle");
      await disk.fill();
      child.stdin.end();
      expect(await exit).toBe(0);
      const log = join(home, "session-state", sessionId, "events.jsonl");
      expect([peer.garbage, stderr()]).toEqual([
        "",
        `turnloop: ${log} could not be written at exit (ENOSPC: no space left on device, write): 1 event held back since then is lost (session.shutdown); a resume goes on after the last stored event\n`,
      ]);
      await disk.free();
      expect(await loggedTypes(home, sessionId)).toEqual(ANSWERED);
    } finally {
      child.kill("SIGKILL");
    }
  });

  test("an event held back before it: says both were not recorded", async ({
    model,
    repository,
  }) => {
    const { home } = disk;
    model.enqueue({ text: "Answered." });
    const { child, peer, stderr, exit, prompt, sessionId } = await serverSession(
      fakeModelEnvironment(home, model),
      repository,
    );
    try {
      await prompt("hello");
      await disk.fill();
      // Recorded once the idle session takes its log back, at the next commit: the shutdown's.
      await peer.request("session.name.set", { sessionId, name: "renamed" });
      child.stdin.end();
      expect(await exit).toBe(0);
      const log = join(home, "session-state", sessionId, "events.jsonl");
      expect([peer.garbage, stderr()]).toEqual([
        "",
        `turnloop: ${log} could not be written at exit (ENOSPC: no space left on device, write): 2 events held back since then are lost (session.title_changed, session.shutdown); a resume goes on after the last stored event\n`,
      ]);
      await disk.free();
      expect(await loggedTypes(home, sessionId)).toEqual(ANSWERED);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
