/**
 * U+0000 in the PostgreSQL store (a trial, round 3 session 29): a prompt holding it was refused
 * by the database ("invalid byte sequence for encoding "UTF8": 0x00", the listing's `title`), and
 * so was every later prompt of the session, whose events were lost; `sessions import` of a log
 * with a raw U+0000 in a damaged line failed with the bare database error. On a real PostgreSQL,
 * through the built CLI and SDK: each face stores what the file store stores, U+0000 included.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { normalise } from "../sdk/support.js";
import { CLI_PATH, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { fakeModelEnvironment, printedSessionId } from "../support/fixtures.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";

/** Several CLI runs or SDK servers per test on a loaded 2-core machine. */
const RUNS = { timeout: 180_000 };

const NUL_PROMPT = "nul:\u0000:end";
/** A model's answer holding U+0000. */
const NUL_ANSWER = "saw a nul: \u0000";
/** A command whose output holds U+0000 between `x` and `y` (the bash tool shows it as `\0`). */
const NUL_COMMAND = "printf 'x\\000y'";

let model: FakeModelServer;
let home: string;
let repository: string;
let database: TestDatabase;

beforeEach(async () => {
  if (postgresUnavailable !== undefined) {
    return;
  }
  model = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-nul-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-nul-repo-"));
  database = await createTestDatabase();
});

afterEach(async () => {
  if (postgresUnavailable !== undefined) {
    return;
  }
  await model.close();
  await database.drop();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

/** The environment of a run on the file store (`store: "file"`) or on the test database. */
function environment(store: "file" | "postgres"): Record<string, string> {
  const extra = store === "postgres" ? { TURNLOOP_DATABASE_URL: database.url } : {};
  const env = fakeModelEnvironment(home, model, extra);
  return Object.fromEntries(
    Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])),
  );
}

const run = (store: "file" | "postgres", args: string[], stdin?: string) =>
  runCli(args, {
    cwd: repository,
    env: environment(store),
    ...(stdin === undefined ? {} : { stdin }),
  });

/** Queues the answers of the three prompts every face sends: the NUL one, a plain one, a tool run. */
function enqueueAnswers(): void {
  model.enqueue(
    { text: NUL_ANSWER },
    { text: "hello back" },
    {
      toolCalls: [
        { id: "call_1", name: "bash", arguments: JSON.stringify({ command: NUL_COMMAND }) },
      ],
    },
    { text: "ran it" },
  );
}

/**
 * The fields that differ between any two runs (times, durations, the session id) or between the
 * stores (`eventsFileSizeBytes`: the file store's file only).
 */
const VOLATILE = /Time$|DurationMs$|^durationMs$|^sessionId$|^eventsFileSizeBytes$/;

/** `data` without the fields that differ between any two runs (times, durations, ids). */
function withoutTimes(data: unknown): unknown {
  if (Array.isArray(data)) {
    return data.map(withoutTimes);
  }
  if (data === null || typeof data !== "object") {
    return data;
  }
  return Object.fromEntries(
    Object.entries(data).flatMap(([key, value]) =>
      VOLATILE.test(key) ? [] : [[key, withoutTimes(value)]],
    ),
  );
}

/** The SDK's three prompts on `store`; @returns the session's messages as read back by a resume. */
async function sdkSession(store: "file" | "postgres") {
  enqueueAnswers();
  const client = new TurnloopClient({
    cliPath: CLI_PATH,
    cwd: repository,
    env: environment(store),
  });
  try {
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const answers = [];
    for (const prompt of [NUL_PROMPT, "plain hello", "run it"]) {
      answers.push((await session.sendAndWait({ prompt }, 60_000))?.data.content);
    }
    expect(answers).toEqual([NUL_ANSWER, "hello back", "ran it"]);
    const listed = (await client.listSessions()).map((summary) => summary.summary);
    const live = await session.getMessages();
    await client.stop();
    const reader = new TurnloopClient({
      cliPath: CLI_PATH,
      cwd: repository,
      env: environment(store),
    });
    const resumed = await reader.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
    });
    const stored = await resumed.getMessages();
    await reader.stop();
    return { listed, live, stored, sessionId: session.sessionId };
  } finally {
    await client.stop();
  }
}

describe.skipIf(postgresUnavailable !== undefined)("U+0000 in the PostgreSQL store", () => {
  test(
    "an SDK prompt and a model's answer holding U+0000, and a tool run, are stored as the file store stores them",
    RUNS,
    async () => {
      const file = await sdkSession("file");
      const postgres = await sdkSession("postgres");
      expect(postgres.listed).toEqual([NUL_PROMPT]);
      expect(file.listed).toEqual([NUL_PROMPT]);
      const shape = (events: typeof file.live) =>
        normalise(events, { cwd: repository, home }).map(({ type, data }) => ({
          type,
          data: withoutTimes(data),
        }));
      expect(shape(postgres.live)).toEqual(shape(file.live));
      expect(shape(postgres.stored)).toEqual(shape(file.stored));
      const prompts = postgres.stored.flatMap((event) =>
        event.type === "user.message" ? [event.data.content] : [],
      );
      expect(prompts).toEqual([NUL_PROMPT, "plain hello", "run it"]);
      const answers = postgres.stored.flatMap((event) =>
        event.type === "assistant.message" ? [event.data.content] : [],
      );
      expect(answers).toEqual([NUL_ANSWER, "hello back", "", "ran it"]);
    },
  );

  test(
    "sessions import of a log with a raw U+0000 in a damaged line stores it as it is and names it",
    RUNS,
    async () => {
      model.enqueue({ text: "The answer is 4." });
      const asked = await run("file", ["-p", "What is 2+2?"]);
      expect(asked.code).toBe(0);
      const sessionId = printedSessionId(asked.stderr);
      const exported = await run("file", ["sessions", "export", sessionId, "--format", "jsonl"]);
      const lines = exported.stdout.split("\n");
      const damaged = '{"type":"note","raw":"a\u0000b"';
      const log = [...lines.slice(0, 2), damaged, ...lines.slice(2)].join("\n");
      const file = join(repository, "with-nul.jsonl");
      await writeFile(file, log);

      const imported = await run("postgres", ["sessions", "import", file]);
      expect(imported.stderr).toContain("the log has 1 damaged line");
      expect(imported.stderr).not.toContain("0x00");
      expect(imported.code).toBe(0);
      const back = await run("postgres", ["sessions", "export", sessionId, "--format", "jsonl"]);
      expect(back.code).toBe(0);
      expect(back.stdout).toBe(log);
    },
  );
});
