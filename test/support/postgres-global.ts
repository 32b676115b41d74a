/**
 * One PostgreSQL server for a whole vitest run (vitest.config.ts `globalSetup`), instead of an
 * `initdb` and a server for every test file that needs one (about 5 s each on a loaded machine).
 *
 * Nothing starts until a test file asks: the set-up serves a loopback HTTP address (handed to the
 * test files as `inject("postgresService")`) whose first request starts the server
 * (scripts/postgres-server.mjs; durability off: it lives for one run), and every request answers
 * `{"url": "postgres://…/postgres"}` (status 200) or the start's error message (status 500). The
 * server is stopped when the run ends. Test files make a database of their own on it
 * (test/support/postgres.ts), so they never see each other's sessions.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startPostgresServer } from "../../scripts/postgres-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>/`: answers the shared server's URL (see above). */
    postgresService: string;
  }
}

/**
 * The run's service and server (started by the first request). Each project loads this module
 * anew, so they live on `globalThis` for the projects to share one.
 */
const shared = globalThis as {
  turnloopPostgresService?: Promise<string>;
  turnloopPostgresServer?: ReturnType<typeof startPostgresServer>;
};

/** Serves the server's URL on a free loopback port; resolves to `http://127.0.0.1:<port>/`. */
function serve(): Promise<string> {
  const http = createServer((_request, response) => {
    shared.turnloopPostgresServer ??= startPostgresServer({
      prefix: "turnloop-postgres-",
      fsync: false,
    });
    void shared.turnloopPostgresServer.then(
      ({ url }) => response.writeHead(200).end(JSON.stringify({ url })),
      (error: unknown) =>
        response.writeHead(500).end(error instanceof Error ? error.message : String(error)),
    );
  });
  return new Promise((resolve) => {
    http.listen(0, "127.0.0.1", () => {
      http.unref();
      resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
    });
  });
}

/** Hands the service's address to the project's test files; stops the server after the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.turnloopPostgresService ??= serve();
  project.provide("postgresService", await shared.turnloopPostgresService);
  return async () => {
    const started = shared.turnloopPostgresServer;
    shared.turnloopPostgresServer = undefined;
    await (await started?.catch(() => undefined))?.stop();
  };
}
