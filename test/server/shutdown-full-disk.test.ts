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
import type { RawPeer } from "../server/raw-peer.js";
import type { FakeModelServer } from "../support/fake-model-server.js";
import { fakeModelEnvironment, test } from "../support/fixtures.js";
import { CAN_MOUNT, type FullDisk, needingMount, useFullDisk } from "../support/full-disk.js";
import { FIRST_PROMPT_LOGGED, loggedTypes, serverSession } from "../support/storage-refusals.js";

/**
 * A server session on `disk` whose prompt "hello" is answered "Answered." before the disk fills;
 * then `beforeClose` runs and the server's stdin ends. @returns the server's exit code, its
 * stdout's bytes that were not protocol, its stderr with the log's path as `<log>`, and the
 * types of the events its log holds once the disk has room again.
 */
async function closedOnFullDisk(
  disk: FullDisk,
  model: FakeModelServer,
  repository: string,
  beforeClose: (peer: RawPeer, sessionId: string) => Promise<unknown> = async () => undefined,
) {
  model.enqueue({ text: "Answered." });
  const { child, peer, stderr, exit, prompt, sessionId } = await serverSession(
    fakeModelEnvironment(disk.home, model),
    repository,
  );
  try {
    const seen = await prompt("hello");
    expect(seen.at(-1)?.type).toBe("session.idle");
    await disk.fill();
    await beforeClose(peer, sessionId);
    child.stdin.end();
    const code = await exit;
    await disk.free();
    const log = join(disk.home, "session-state", sessionId, "events.jsonl");
    return {
      code,
      garbage: peer.garbage,
      stderr: stderr().replaceAll(log, "<log>"),
      logged: await loggedTypes(disk.home, sessionId),
    };
  } finally {
    child.kill("SIGKILL");
  }
}

describe.runIf(CAN_MOUNT)(needingMount("a server session closing on a full disk"), () => {
  const disk = useFullDisk(1024, false);

  test("says session.shutdown was not recorded; the prompt's events stay", async ({
    model,
    repository,
  }) => {
    expect(await closedOnFullDisk(disk, model, repository)).toEqual({
      code: 0,
      garbage: "",
      stderr:
        "turnloop: <log> could not be written at exit (ENOSPC: no space left on device, write): 1 event held back since then is lost (session.shutdown); a resume goes on after the last stored event\n",
      logged: FIRST_PROMPT_LOGGED,
    });
  });

  test("an event held back before it: says both were not recorded", async ({
    model,
    repository,
  }) => {
    // Recorded once the idle session takes its log back, at the next commit: the shutdown's.
    const rename = (peer: RawPeer, sessionId: string) =>
      peer.request("session.name.set", { sessionId, name: "renamed" });
    expect(await closedOnFullDisk(disk, model, repository, rename)).toEqual({
      code: 0,
      garbage: "",
      stderr:
        "turnloop: <log> could not be written at exit (ENOSPC: no space left on device, write): 2 events held back since then are lost (session.title_changed, session.shutdown); a resume goes on after the last stored event\n",
      logged: FIRST_PROMPT_LOGGED,
    });
  });
});
