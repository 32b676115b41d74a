/**
 * A real TCP relay in front of the real test PostgreSQL, for the tests of an outage
 * (test/session/postgres-outage.test.ts, test/cli/store-outage-exit.test.ts): cutting it ends
 * every connection through it, and it then ends each new one at once (`pg`: "Connection
 * terminated unexpectedly", an error the store retries), counting them, so a test waits on the
 * tries themselves, never on time. It counts the connections it let through too, and those that
 * carried a batch write or a commit notification (test/cli/store-one-connection.test.ts).
 */

import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

/** What the appender's batch write (appender.ts `writeRows`) sends, and nothing else does. */
const BATCH_WRITE = "UPDATE sessions SET next_seq = $4";
/** What a commit notification sent alone (notify.ts `CommitNotifier`) sends. */
const NOTIFICATION = "SELECT pg_notify($1, $2)";

export class Relay {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  #refuseLeft = 0;
  #failWritesLeft = 0;
  #refused = 0;
  #accepted = 0;
  readonly #carrying = new Set<Socket>();
  #waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(target: URL) {
    this.#server = createServer((socket) => {
      if (this.#refuseLeft > 0) {
        this.#refuseLeft -= 1;
        socket.destroy();
        this.#count();
        return;
      }
      this.#accepted += 1;
      const upstream = connect(Number(target.port), target.hostname);
      for (const [one, other] of [
        [socket, upstream],
        [upstream, socket],
      ] as const) {
        this.#open.add(one);
        one.on("error", () => other.destroy());
        one.on("close", () => {
          this.#open.delete(one);
          other.destroy();
        });
      }
      upstream.pipe(socket);
      socket.on("data", (chunk: Buffer) => {
        if (chunk.includes(BATCH_WRITE) || chunk.includes(NOTIFICATION)) {
          this.#carrying.add(socket);
        }
        if (this.#failWritesLeft > 0 && chunk.includes(BATCH_WRITE)) {
          this.#failWritesLeft -= 1;
          socket.destroy();
          this.#count();
          return;
        }
        upstream.write(chunk);
      });
    });
  }

  #count(): void {
    this.#refused += 1;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.#refused >= waiter.count) {
        waiter.resolve();
      }
      return this.#refused < waiter.count;
    });
  }

  /** Ends the connection of each of the next `count` batch writes as it is sent (counted as refused). */
  failWrites(count: number): void {
    this.#failWritesLeft = count;
  }

  async listen(): Promise<number> {
    this.#server.listen(0, "127.0.0.1");
    await once(this.#server, "listening");
    const address = this.#server.address();
    if (typeof address !== "object" || address === null) {
      throw new Error("the relay has no port");
    }
    return address.port;
  }

  /** Ends every connection, then ends the next `refuse` ones at once. */
  cut(refuse: number): void {
    this.#refuseLeft = refuse;
    for (const socket of this.#open) {
      socket.destroy();
    }
  }

  /** Lets connections through again. */
  restore(): void {
    this.#refuseLeft = 0;
  }

  get refused(): number {
    return this.#refused;
  }

  /** How many connections it let through (each a connection of the client to the database). */
  get accepted(): number {
    return this.#accepted;
  }

  /** How many of those carried a batch write or a commit notification sent alone. */
  get carrying(): number {
    return this.#carrying.size;
  }

  /** Resolves once `count` connections were refused in all. */
  refusedAtLeast(count: number): Promise<void> {
    if (this.#refused >= count) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.cut(0);
    this.#server.close();
    await once(this.#server, "close");
  }
}
