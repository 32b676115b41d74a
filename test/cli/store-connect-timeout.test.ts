import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { afterEach, expect } from "vitest";
import { test } from "../support/fixtures.js";

/**
 * Round 3, session 32: `pg` waits for a new connection as long as the system does (its
 * `connectionTimeoutMillis` defaults to none), so a database host that drops packets, or accepts
 * and never answers, held a run for minutes. A connection gets 10 s now, or the URL's
 * `connect_timeout` (seconds, libpq's parameter; README, "Running many workers"). The database
 * here is a real TCP server that accepts and says nothing, as such a host does.
 */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** A TCP server that accepts connections and never answers; its port. */
async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closing.push(async () => {
    for (const socket of sockets) {
      socket.destroy();
    }
    server.close();
    await once(server, "close");
  });
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : 0;
}

test("a database that never answers: the connect_timeout of the URL ends the wait with a clear error", async ({
  cli,
}) => {
  const port = await silentServer();
  const url = `postgres://turnloop:secret@127.0.0.1:${port}/turnloop?connect_timeout=1`;
  const result = await cli(["sessions"], { env: { TURNLOOP_DATABASE_URL: url } });
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(
    `turnloop: postgres://turnloop:***@127.0.0.1:${port}/turnloop?connect_timeout=1: Connection terminated due to connection timeout\n`,
  );
}, 60_000);
