/**
 * One SIGTERM ends a server that is already stopping (src/server/main.ts): its stdin ended during
 * a turn, which it cancelled, and closing the session waits on the store (the PostgreSQL `events`
 * table locked by another transaction, so the cancel's events and `session.shutdown` wait). A supervisor's SIGTERM
 * then ends it at once, as Node does; it was swallowed by the stop under way (session 28 for
 * `--port`; the `--stdio` server swallowed it still), and the process waited for the lock.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { connect } from "node:net";
import { describe, expect, onTestFinished } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { endLockWaiters, lockWaits, storedTypes } from "../support/locked-events.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { RawPeer } from "./raw-peer.js";

/** The server as a child process: how it ended, and what it wrote on stderr. */
function startServer(transport: "stdio" | "tcp", env: NodeJS.ProcessEnv, cwd: string) {
  const args = transport === "stdio" ? ["--stdio"] : ["--port", "0"];
  const child = spawn(process.execPath, [CLI_PATH, "--headless", ...args], { env, cwd });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, ended, stderr: () => stderr };
}

/** A peer on the server's stdio, or on a TCP connection to the port it printed. */
async function peerOf(transport: "stdio" | "tcp", child: ChildProcessWithoutNullStreams) {
  if (transport === "stdio") {
    return new RawPeer(child.stdin, child.stdout);
  }
  let printed = "";
  const port = await new Promise<number>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      printed += text;
      const match = /listening on port (\d+)/.exec(printed);
      if (match !== null) {
        resolve(Number(match[1]));
      }
    });
  });
  const socket = connect(port, "127.0.0.1");
  return new RawPeer(socket, socket);
}

const TURN_STORED = ["session.start", "user.message", "assistant.turn_start"];

describe.skipIf(postgresUnavailable !== undefined)("SIGTERM while the server stops", () => {
  test.for(["stdio", "tcp"] as const)(
    "--%s: stdin ended during a turn, closing waits on a lock: one SIGTERM ends it",
    { timeout: 60_000 },
    async (transport, { environment, repository, model }) => {
      const database = await createTestDatabase();
      const server = startServer(
        transport,
        environment({ TURNLOOP_DATABASE_URL: database.url }),
        repository,
      );
      const locker = await database.pool.connect();
      // Also when the test fails (a server that swallowed the SIGTERM waits for ever).
      onTestFinished(async () => {
        server.child.kill("SIGKILL");
        locker.release();
        await database.drop();
      });
      // The model starts its answer and never finishes it: a turn in flight.
      model.setResponder(() => ({
        text: "never",
        pause: { afterEvents: 0, until: gate().opened },
      }));
      const peer = await peerOf(transport, server.child);
      await peer.request("connect", {});
      const created = await peer.request("session.create", {});
      const { sessionId } = created.result as { sessionId: string };
      await peer.request("session.send", { sessionId, prompt: "wait" });
      await expect.poll(() => storedTypes(database.pool, sessionId)).toEqual(TURN_STORED);
      // The turn start is stored before its request is sent: a stop before the request would
      // leave no request in flight to cancel.
      await expect.poll(() => model.requests.length).toBe(1);
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
      server.child.stdin.end();
      // Gates: stopping cancelled the turn (the model's request closed), and closing the session
      // waits for the lock to write its end.
      await expect.poll(() => model.requests[0]?.clientClosed).toBe(true);
      await expect.poll(() => lockWaits(database.pool)).toBeGreaterThan(0);
      server.child.kill("SIGTERM");
      expect(await server.ended).toEqual({ code: null, signal: "SIGTERM" });
      expect(server.stderr()).toBe(
        transport === "stdio"
          ? ""
          : "turnloop: warning: no TURNLOOP_CONNECTION_TOKEN: any local process may connect\n" +
              "turnloop: stdin closed: shutting down\n",
      );
      await endLockWaiters(database.pool);
      await locker.query("ROLLBACK");
      // What the store took before is kept; the cancel and the end it was writing never were.
      expect(await storedTypes(database.pool, sessionId)).toEqual(TURN_STORED);
    },
  );
});
