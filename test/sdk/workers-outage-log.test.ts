/**
 * The session-36 trial (P4-1): a worker said nothing on stderr while PostgreSQL was down for 22 s
 * during a command, nor when it came back. Now the heartbeat says one line when the database
 * becomes unreachable (with the reason, no password) and one when it is back, never one per
 * failed beat. The outage is a real TCP relay in front of the test server (postgres-relay.ts);
 * the test waits on refused connections and stderr lines, never on time. A worker that holds no
 * session says the same (lane pg, session 37: it said nothing).
 */

import { execFileSync } from "node:child_process";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { TEST_LEASE_VARIABLE } from "../../src/session/postgres/lease.js";
import { gate } from "../support/gate.js";
import { Relay } from "../support/postgres-relay.js";
import { startTcpServer } from "./tcp-server.js";
import { describeWorkers, type Workers } from "./workers-support.js";

/**
 * A server worker whose database is `workers`' behind a {@link Relay} (its URL with a password,
 * to show it is never printed); `lines()`: its stderr lines about the database's reachability.
 */
async function relayedWorker(workers: Workers) {
  const { fixture, env } = workers;
  const target = new URL(env.TURNLOOP_DATABASE_URL ?? "");
  target.password = "hunter2";
  const relay = new Relay(target);
  const relayed = new URL(target.href);
  relayed.port = String(await relay.listen());
  fixture.onClose(() => relay.close());
  const worker = await startTcpServer(fixture, { ...env, TURNLOOP_DATABASE_URL: relayed.href });
  fixture.onClose(() => worker.stop());
  let stderr = "";
  worker.process.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return {
    relay,
    worker,
    stderr: () => stderr,
    lines: () => stderr.split("\n").filter((line) => line.includes("reachable")),
    /** The database's URL as the worker prints it. */
    database: relayed.href.replace("hunter2", "***"),
  };
}

/** Cuts `relay` until the worker said it once and more beats failed, then restores it. */
async function outage(relay: Relay, lines: () => string[]): Promise<void> {
  relay.cut(Number.POSITIVE_INFINITY);
  await vi.waitFor(() => expect(lines()).toHaveLength(1), { timeout: 60_000, interval: 50 });
  // More beats fail (each a refused connection), and say nothing more.
  const refusedBefore = relay.refused;
  await relay.refusedAtLeast(refusedBefore + 3);
  expect(lines()).toHaveLength(1);
  relay.restore();
  await vi.waitFor(() => expect(lines()).toHaveLength(2), { timeout: 60_000, interval: 50 });
}

describeWorkers(
  "a worker's stderr while its database is away",
  (workers) => {
    test("one line when the database becomes unreachable, one when it is back", async () => {
      const { fixture } = workers;
      const { relay, worker, stderr, lines, database } = await relayedWorker(workers);

      // A command that waits on a FIFO: the session's lease is held (and renewed) meanwhile.
      const fifo = join(fixture.cwd, "gate");
      execFileSync("mkfifo", [fifo]);
      const client = new TurnloopClient({ port: worker.port, cwd: fixture.cwd });
      const session = await client.createSession({ onPermissionRequest: approveAll });
      fixture.model.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: `cat ${fifo}` }) },
          ],
        },
        { text: "done" },
      );
      const idle = gate();
      session.on((event) => {
        if (event.type === "session.idle") {
          idle.open();
        }
      });
      await session.send({ prompt: "wait on the gate" });
      const writer = await open(fifo, "w");

      await outage(relay, lines);
      await writer.write("go\n");
      await writer.close();
      await idle.opened;
      await client.stop();

      expect(lines()).toEqual([
        expect.stringMatching(
          new RegExp(
            `^turnloop: ${escapedForRegExp(database)} is unreachable \\(.+\\): the leases of this worker's session are not renewed; retrying every 500 ms$`,
          ),
        ),
        `turnloop: ${database} is reachable again: leases renewed`,
      ]);
      expect(stderr()).not.toContain("hunter2");
    }, 120_000);

    test("a worker holding no session: one line when the database becomes unreachable, one when it is back", async () => {
      const { relay, stderr, lines, database } = await relayedWorker(workers);
      // Its heartbeat's connection is open: the outage cuts it.
      await vi.waitFor(() => expect(relay.accepted).toBeGreaterThan(0), {
        timeout: 60_000,
        interval: 50,
      });
      await outage(relay, lines);
      expect(lines()).toEqual([
        expect.stringMatching(
          new RegExp(
            `^turnloop: ${escapedForRegExp(database)} is unreachable \\(.+\\): this worker can open no session; retrying every 500 ms$`,
          ),
        ),
        `turnloop: ${database} is reachable again`,
      ]);
      expect(stderr()).not.toContain("hunter2");
    }, 120_000);
  },
  { [TEST_LEASE_VARIABLE]: "2000" },
);

function escapedForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
