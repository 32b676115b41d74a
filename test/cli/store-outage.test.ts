import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { fakeModelEnvironment } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import {
  createTestDatabase,
  cutOff,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";
import { removeTree } from "../support/remove-tree.js";
import { REFUSED_AFTER_TURN, serverSession } from "../support/storage-refusals.js";
import { makeHome } from "../support/test-home.js";

/**
 * The PostgreSQL store going away while a prompt runs (a fresh user's trial, round 3 session 19,
 * #14): the run said so once, as a storage failure, and then printed a raw `DatabaseError` stack
 * from giving the session's lease back. A lease that cannot be given back lapses by itself
 * (README, "When a worker dies or freezes"), so closing says nothing more. With the database cut
 * off during the reply, the piped interactive face and the SDK server say it too, as session 28
 * made them on the file store (late-storage-errors.test.ts); on the code before, the piped face
 * exited 0 and the server sent no `session.error`.
 */

/** What exiting says of the reply's events the database never took (postgres/appender.ts). */
const HELD_BACK_LOST =
  /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written at exit \(database "t_\w+" is not currently accepting connections\): 3 events held back since then are lost \(assistant\.message, assistant\.usage, assistant\.turn_end\); a resume goes on after the last stored event\n?$/;

/**
 * The same from `--headless`, whose close records `session.shutdown` too, held back with the rest
 * (server/shutdown-metrics.ts `recordShutdown`).
 */
const HELD_BACK_LOST_WITH_SHUTDOWN =
  /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written at exit \(database "t_\w+" is not currently accepting connections\): 4 events held back since then are lost \(assistant\.message, assistant\.usage, assistant\.turn_end, session\.shutdown\); a resume goes on after the last stored event\n?$/;

/** What the heartbeat says once when it finds the database gone (postgres/lease.ts). */
const HEARTBEAT_UNREACHABLE =
  /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ is unreachable \(host 127\.0\.0\.1, port \d+, database t_\w+: database "t_\w+" is not currently accepting connections, code 55000\): the leases of this worker's session are not renewed; retrying every 2500 ms\n$/;

let server: FakeModelServer;
let home: string;
let repository: string;
let database: TestDatabase | undefined;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await makeHome("turnloop-outage-home-");
  repository = await mkdtemp(join(tmpdir(), "turnloop-outage-repo-"));
});

afterEach(async () => {
  await server.close();
  await database?.drop();
  await removeTree(home);
  await removeTree(repository);
});

describe.skipIf(postgresUnavailable !== undefined)("the database going away mid-prompt", () => {
  test("-p says it once, as a storage failure, with no stack", { timeout: 60_000 }, async () => {
    const tested = await createTestDatabase();
    database = tested;
    let cut: Promise<void> | undefined;
    server.setResponder(() => {
      cut ??= cutOff(tested);
      return { text: "an answer the log cannot keep", pause: { afterEvents: 0, until: cut } };
    });
    const result = await runCli(["-p", "hello"], {
      cwd: repository,
      env: fakeModelEnvironment(home, server, { TURNLOOP_DATABASE_URL: tested.url }),
    });
    await cut;
    const lines = result.stderr.split("\n").filter((line) => line !== "");
    expect({ code: result.code, stack: lines.filter((line) => /^\s+at /.test(line)) }).toEqual({
      code: 1,
      stack: [],
    });
    // Once as the prompt's storage failure; then, exiting, what was held back and is lost.
    expect(lines.filter((line) => line.startsWith("turnloop:"))).toEqual([
      expect.stringMatching(/could not be written \(/),
      expect.stringMatching(HELD_BACK_LOST),
    ]);
    expect(result.stderr).toMatch(
      /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \((?!postgres).*not currently accepting connections\): the prompt was stopped; every event written before is kept\n/,
    );
  });

  test("the piped interactive face says it after the answer and exits 1", {
    timeout: 60_000,
  }, async () => {
    const tested = await createTestDatabase();
    database = tested;
    let cut: Promise<void> | undefined;
    server.setResponder(() => {
      cut ??= cutOff(tested);
      return { text: "an answer the log cannot keep", pause: { afterEvents: 0, until: cut } };
    });
    const result = await runCli([], {
      cwd: repository,
      env: fakeModelEnvironment(home, server, { TURNLOOP_DATABASE_URL: tested.url }),
      stdin: "hello\n",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /an answer the log cannot keep\n(.*\n)*turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \((?!postgres).*not currently accepting connections\): the prompt was stopped; every event written before is kept\n/,
    );
  });

  test("--headless: the reply's writes refused: session.error before session.idle; stdin's end ends the server", {
    timeout: 60_000,
  }, async () => {
    const tested = await createTestDatabase();
    database = tested;
    let cut: Promise<void> | undefined;
    server.setResponder(() => {
      cut ??= cutOff(tested);
      return { text: "an answer the log cannot keep", pause: { afterEvents: 0, until: cut } };
    });
    const env = fakeModelEnvironment(home, server, { TURNLOOP_DATABASE_URL: tested.url });
    const { child, peer, stderr, exit, prompt } = await serverSession(env, repository);
    try {
      const lasting = await prompt("hello", 30_000);
      expect(lasting.map((event) => event.type)).toEqual(REFUSED_AFTER_TURN);
      expect(lasting.find((event) => event.type === "session.error")?.data).toEqual({
        errorType: "storage",
        message: expect.stringMatching(
          /could not be written \(.*not currently accepting connections\)/,
        ),
      });
      // The heartbeat finds the database gone and says so once, whenever its beat comes (it kept
      // beating while the prompt ran): the server ends once that line is out, so no late beat
      // adds one between what exiting says and the end (it says it once until it reaches the
      // database again, which is cut off for good: postgres/lease.ts).
      const noticed = gate();
      child.stderr.on("data", () => {
        if (stderr().includes(" is unreachable (")) {
          noticed.open();
        }
      });
      await noticed.opened;
      child.stdin.end();
      // Closing, the server tries once more to store what was held back, then says what is lost.
      expect(await exit).toBe(0);
      const [unreachable, ...closing] = stderr().split(/(?<=\n)/);
      expect([peer.garbage, unreachable, closing.join("")]).toEqual([
        "",
        expect.stringMatching(HEARTBEAT_UNREACHABLE),
        expect.stringMatching(HELD_BACK_LOST_WITH_SHUTDOWN),
      ]);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
