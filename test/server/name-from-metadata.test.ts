/**
 * `session.name.get` and `session.metadata.snapshot` of a session resumed in a server answer its
 * name from the store's metadata (metadata.json, PostgreSQL's `sessions.name`: round 3 session
 * 45), on both stores; before, each read and decoded the whole log for its last
 * `session.title_changed` (a 2 MB reply's, here). They read that one session's metadata
 * (`SessionStore.summary`), not the listing of every session's (round 3 session 47): the store
 * holds {@link OTHER_SESSIONS} more. Read by what the kernel counts of the server's reads
 * (`rchar` of /proc/<pid>/io: files, pipes and the database's socket), Linux only.
 */

import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fixtureForFile } from "../sdk/support.js";
import { prose } from "../support/huge-answer.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { type RawPeer, spawnServer } from "./raw-peer.js";

const fixture = fixtureForFile();
const REPLY_BYTES = 2_000_000;
/** Sessions stored besides the two asked about: a listing of them all reads well over 64 KiB. */
const OTHER_SESSIONS = 200;

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
async function namesOfResumed(
  env: NodeJS.ProcessEnv,
  storeOthers: (sessionId: string) => Promise<void>,
) {
  const { child, peer, exit, stderr } = spawnServer(["--stdio"], env, fixture.cwd);
  try {
    await peer.request("connect", {});
    const named = await sessionWithALongReply(peer, "write a lot");
    await peer.request("session.name.set", { sessionId: named, name: "release notes" });
    const unnamed = await sessionWithALongReply(peer, "write more");
    const other = (await peer.request("session.create", {})).result as { sessionId: string };
    fixture.model.enqueue({ text: "Short." });
    await peer.request("session.send", { sessionId: other.sessionId, prompt: "short" });
    await peer.waitFor(isIdle, 60_000);
    for (const sessionId of [named, unnamed, other.sessionId]) {
      await peer.request("session.destroy", { sessionId });
    }
    await storeOthers(other.sessionId);
    for (const sessionId of [named, unnamed]) {
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
  test("files: answered from metadata.json, under 64 KiB read for two logs of 2 MB among 200 others", async () => {
    // Copies of a short session's folder (its log and metadata.json), each under its own id.
    const sessions = join(fixture.home, "session-state");
    const { answers, read } = await namesOfResumed(fixture.env, async (sessionId) => {
      for (let index = 0; index < OTHER_SESSIONS; index++) {
        const id = `${sessionId.slice(0, -12)}${String(index).padStart(12, "0")}`;
        await cp(join(sessions, sessionId), join(sessions, id), { recursive: true });
      }
    });
    expect(answers).toEqual(ANSWERS);
    expect(read).toBeLessThan(64 * 1024);
  }, 120_000);

  test.skipIf(postgresUnavailable !== undefined)(
    "PostgreSQL: answered from the sessions row, under 64 KiB read for two logs of 2 MB among 200 others",
    async () => {
      const database = await createTestDatabase();
      try {
        const env = { ...fixture.env, TURNLOOP_DATABASE_URL: database.url };
        // Copies of a short session's row, each under its own id.
        const { answers, read } = await namesOfResumed(env, async (sessionId) => {
          await database.pool.query(
            `INSERT INTO sessions
               SELECT (jsonb_populate_record(NULL::sessions,
                 to_jsonb(s) || jsonb_build_object('id', s.id || '-' || copy))).*
               FROM sessions s, generate_series(1, $2) AS copy WHERE s.id = $1`,
            [sessionId, OTHER_SESSIONS],
          );
        });
        expect(answers).toEqual(ANSWERS);
        expect(read).toBeLessThan(64 * 1024);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
