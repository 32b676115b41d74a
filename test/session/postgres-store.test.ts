import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe } from "vitest";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { appendingScript, runScript } from "./other-process.js";
import { describeSessionStore, type StoreUnderTest } from "./store-contract.js";
import { describeSubscriptions } from "./subscribe-contract.js";
import { makeTemporaryDirectory } from "./support.js";

const STORE_MODULE = fileURLToPath(
  new URL("../../dist/session/postgres/store.js", import.meta.url),
);

/** A process that opens the session through the built store and waits to be killed. */
const HOLDER_SCRIPT = `
const { PostgresSessionStore } = await import(process.argv[1]);
const store = new PostgresSessionStore({ url: process.argv[2], home: process.argv[3] });
await store.open(process.argv[4]);
process.stdout.write("held\\n");
setInterval(() => undefined, 1 << 30);
`;

/**
 * Adds `bytes` to the session's rows as a damaged import or a hand edit would leave them: one row
 * per line, a last piece without its `\n` as a row of its own.
 */
export async function appendRawRows(
  database: TestDatabase,
  sessionId: string,
  bytes: Buffer,
): Promise<void> {
  const text = bytes.toString("utf8");
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const client = await database.pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ next_seq: string; epoch: string }>(
      "SELECT next_seq, epoch FROM sessions WHERE id = $1 FOR UPDATE",
      [sessionId],
    );
    const seq = Number(rows[0]?.next_seq);
    for (const [index, line] of lines.entries()) {
      await client.query(
        "INSERT INTO events (session_id, seq, epoch, type, data) VALUES ($1, $2, $3, 'damaged', $4)",
        [sessionId, seq + index, rows[0]?.epoch, line],
      );
    }
    await client.query("UPDATE sessions SET next_seq = $2 WHERE id = $1", [
      sessionId,
      seq + lines.length,
    ]);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

async function createPostgresStore(): Promise<StoreUnderTest> {
  const database = await createTestDatabase();
  const home = await makeTemporaryDirectory();
  const store = new PostgresSessionStore({ url: database.url, home });
  const children: Array<{ kill(): Promise<void> }> = [];
  return {
    store,
    async holdInAnotherProcess(sessionId) {
      const child = spawn(
        process.execPath,
        ["--input-type=module", "-e", HOLDER_SCRIPT, STORE_MODULE, database.url, home, sessionId],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = once(child, "exit");
      const [chunk] = (await Promise.race([once(child.stdout, "data"), exited])) as unknown[];
      if (String(chunk) !== "held\n" || child.pid === undefined) {
        throw new Error("the holder process did not take the lease (is dist/ built?)");
      }
      const holder = {
        pid: child.pid,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGKILL");
            await exited;
          }
        },
      };
      children.push(holder);
      return holder;
    },
    appendInAnotherProcess: (sessionId, events, commitEvery) =>
      runScript(
        appendingScript(
          "new (await import(argv[0])).PostgresSessionStore({ url: argv[1], home: argv[2] })",
          "await store.close();",
        ),
        [STORE_MODULE, database.url, home],
        { sessionId, events, commitEvery },
      ),
    appendRaw: (sessionId, bytes) => appendRawRows(database, sessionId, bytes),
    async cleanup() {
      await Promise.all(children.map((child) => child.kill()));
      await store.close();
      await database.drop();
    },
  };
}

describe.skipIf(postgresUnavailable !== undefined)("the PostgreSQL store", () => {
  describeSessionStore("PostgreSQL store", createPostgresStore);
  describeSubscriptions("PostgreSQL store", createPostgresStore);
});
