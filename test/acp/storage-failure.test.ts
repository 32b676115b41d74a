import { afterEach, describe, expect, test } from "vitest";
import {
  createTestDatabase,
  cutOff,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";
import { AcpHarness } from "./support.js";

/**
 * Trial 27f, finding 1: a prompt stopped because the session's store could not be written was
 * answered "The model request failed: … could not be written …", though the model had answered.
 * The error names storage.
 */

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

describe.skipIf(postgresUnavailable !== undefined)("a store that cannot be written", () => {
  test("fails the prompt with an error naming storage, not the model request", async () => {
    const tested = await createTestDatabase();
    database = tested;
    const harness = await AcpHarness.start({ env: { TURNLOOP_DATABASE_URL: tested.url } });
    const sessionId = await harness.newSession();
    let cut: Promise<void> | undefined;
    harness.server.setResponder(() => {
      cut ??= cutOff(tested);
      return { text: "an answer the log cannot keep", pause: { afterEvents: 0, until: cut } };
    });
    const failure = await harness.prompt(sessionId, "hello").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: -32603,
      data: { errorType: "storage" },
      message: expect.stringMatching(
        /^The session could not be stored: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \((?!postgres).*not currently accepting connections\): the prompt was stopped; every event written before is kept$/,
      ),
    });
  });
});
