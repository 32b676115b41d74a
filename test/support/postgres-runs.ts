/**
 * What the tests of CLI and SDK runs on the test PostgreSQL share (postgres-nul, postgres-rows):
 * for each test, a fake model server, a home and a repository of its own, and a database of its
 * own on the test server (postgres.ts). Nothing is set up while `postgresUnavailable` says no
 * test PostgreSQL can be had (those suites skip and say why).
 */

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";
import { fakeModelEnvironment } from "./fixtures.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "./postgres.js";
import { removeTree } from "./remove-tree.js";
import { makeHome } from "./test-home.js";

/** One test's model, folders and database; each getter throws outside a test. */
export interface PostgresRuns {
  readonly model: FakeModelServer;
  readonly home: string;
  readonly repository: string;
  readonly database: TestDatabase;
  /**
   * The environment of a run in `home` against `model`: on the test database, or on the file store
   * (`store: "file"`).
   */
  environment(store?: "file" | "postgres"): Record<string, string>;
}

interface Opened {
  model: FakeModelServer;
  home: string;
  repository: string;
  database: TestDatabase;
}

/**
 * Registers the `beforeEach` that opens a test's {@link PostgresRuns} and the `afterEach` that
 * closes the model, drops the database and removes the folders (`turnloop-<name>-home-…`,
 * `turnloop-<name>-repo-…`).
 */
export function postgresRunsEachTest(name: string): PostgresRuns {
  let opened: Opened | undefined;
  beforeEach(async () => {
    if (postgresUnavailable !== undefined) {
      return;
    }
    opened = {
      model: await startFakeModelServer(),
      home: await makeHome(`turnloop-${name}-home-`),
      repository: await mkdtemp(join(tmpdir(), `turnloop-${name}-repo-`)),
      database: await createTestDatabase(),
    };
  });
  afterEach(async () => {
    const closing = opened;
    opened = undefined;
    if (closing === undefined) {
      return;
    }
    await closing.model.close();
    await closing.database.drop();
    await removeTree(closing.home);
    await removeTree(closing.repository);
  });
  const now = (): Opened => {
    if (opened === undefined) {
      throw new Error(
        "postgresRunsEachTest: its fields are set for each test; use them inside one",
      );
    }
    return opened;
  };
  return {
    get model() {
      return now().model;
    },
    get home() {
      return now().home;
    },
    get repository() {
      return now().repository;
    },
    get database() {
      return now().database;
    },
    environment(store = "postgres") {
      const { home, model, database } = now();
      const extra = store === "postgres" ? { TURNLOOP_DATABASE_URL: database.url } : {};
      const env = fakeModelEnvironment(home, model, extra);
      return Object.fromEntries(
        Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])),
      );
    },
  };
}
