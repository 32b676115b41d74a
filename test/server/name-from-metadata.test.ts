/**
 * `session.name.get` and `session.metadata.snapshot` of a session resumed in a server answer its
 * name from the store's metadata (metadata.json, PostgreSQL's `sessions.name`: round 3 session
 * 45), on both stores; before, each read and decoded the whole log for its last
 * `session.title_changed` (a 2 MB reply's, here). Read by what the kernel counts of the
 * server's reads (`rchar` of /proc/<pid>/io: files, pipes and the database's socket), Linux only.
 */

import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { fixtureForFile } from "../sdk/support.js";
import { prose } from "../support/huge-answer.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { type RawPeer, spawnServer } from "./raw-peer.js";

const fixture = fixtureForFile();
const REPLY_BYTES = 2_000_000;

/** Bytes the process `pid` has read so far (files, pipes, sockets). */
async function bytesRead(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, "utf8");
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

const isIdle = (message: { method?: string; params?: unknown }) =>
  message.method === "session.event" &&
  (message.params as { event: { type: string } }).event.type === "session.idle";

/** A session of `peer`'s server whose one reply is {@link REPLY_BYTES} long, idle. */
async function sessionWithALongReply(peer: RawPeer, prompt: string): Promise<string> {
  const created = await peer.request("session.create", {});
  const { sessionId } = created.result as { sessionId: string };
  fixture.model.enqueue({ text: prose(REPLY_BYTES, "END.") });
  await peer.request("session.send", { sessionId, prompt });
  await peer.waitFor(isIdle, 60_000);
  return sessionId;
}

/**
 * Runs a server on the store `env` names: one session named "release notes", one not, both
 * closed and resumed; answers what `session.name.get` and `session.metadata.snapshot` said of
 * each and the bytes the server read while it answered.
 */
async function namesOfResumed(env: NodeJS.ProcessEnv) {
  const { child, peer, exit, stderr } = spawnServer(["--stdio"], env, fixture.cwd);
  try {
    await peer.request("connect", {});
    const named = await sessionWithALongReply(peer, "write a lot");
    await peer.request("session.name.set", { sessionId: named, name: "release notes" });
    const unnamed = await sessionWithALongReply(peer, "write more");
    for (const sessionId of [named, unnamed]) {
      await peer.request("session.destroy", { sessionId });
      const resumed = await peer.request("session.resume", { sessionId });
      expect(resumed.error, stderr()).toBeUndefined();
    }
    const before = await bytesRead(child.pid ?? 0);
    const answers = [];
    for (const sessionId of [named, unnamed]) {
      const name = (await peer.request("session.name.get", { sessionId })).result;
      const snapshot = await peer.request("session.metadata.snapshot", { sessionId });
      const { summary } = snapshot.result as { summary?: string };
      answers.push({ name, summary });
    }
    const read = (await bytesRead(child.pid ?? 0)) - before;
    return { answers, read };
  } finally {
    child.stdin.end();
    await exit;
  }
}

const ANSWERS = [
  { name: { name: "release notes" }, summary: "release notes" },
  { name: { name: "write more" }, summary: "write more" },
];

describe.runIf(process.platform === "linux")("the name of a resumed session", () => {
  test("files: answered from metadata.json, under 64 KiB read for two logs of 2 MB", async () => {
    const { answers, read } = await namesOfResumed(fixture.env);
    expect(answers).toEqual(ANSWERS);
    expect(read).toBeLessThan(64 * 1024);
  }, 120_000);

  test.skipIf(postgresUnavailable !== undefined)(
    "PostgreSQL: answered from the sessions row, under 64 KiB read for two logs of 2 MB",
    async () => {
      const database = await createTestDatabase();
      try {
        const env = { ...fixture.env, TURNLOOP_DATABASE_URL: database.url };
        const { answers, read } = await namesOfResumed(env);
        expect(answers).toEqual(ANSWERS);
        expect(read).toBeLessThan(64 * 1024);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
