import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { fakeModelEnvironment } from "../support/fixtures.js";
import {
  createTestDatabase,
  cutOff,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";

/**
 * The PostgreSQL store going away while a prompt runs (a fresh user's trial, round 3 session 19,
 * #14): the run said so once, as a storage failure, and then printed a raw `DatabaseError` stack
 * from giving the session's lease back. A lease that cannot be given back lapses by itself
 * (README, "When a worker dies or freezes"), so closing says nothing more.
 */

let server: FakeModelServer;
let home: string;
let repository: string;
let database: TestDatabase | undefined;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-outage-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-outage-repo-"));
});

afterEach(async () => {
  await server.close();
  await database?.drop();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
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
    expect(lines.filter((line) => line.startsWith("turnloop:"))).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \((?!postgres).*not currently accepting connections\): the prompt was stopped; every event written before is kept\n/,
    );
  });
});
