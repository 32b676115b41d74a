/**
 * U+0000 in the PostgreSQL store (a trial, round 3 session 29): a prompt holding it was refused
 * by the database ("invalid byte sequence for encoding "UTF8": 0x00", the listing's `title`), and
 * so was every later prompt of the session, whose events were lost; `sessions import` of a log
 * with a raw U+0000 in a damaged line failed with the bare database error. On a real PostgreSQL,
 * through the built CLI and SDK: each face stores what the file store stores, U+0000 included.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { normalise } from "../sdk/support.js";
import { CLI_PATH, runCli } from "../support/cli.js";
import { printedSessionId } from "../support/fixtures.js";
import { postgresUnavailable } from "../support/postgres.js";
import { postgresRunsEachTest } from "../support/postgres-runs.js";

/** Several CLI runs or SDK servers per test on a loaded 2-core machine. */
const RUNS = { timeout: 180_000 };

const NUL_PROMPT = "nul:\u0000:end";
/** A model's answer holding U+0000. */
const NUL_ANSWER = "saw a nul: \u0000";
/** A command whose output holds U+0000 between `x` and `y` (the bash tool shows it as `\0`). */
const NUL_COMMAND = "printf 'x\\000y'";

const runs = postgresRunsEachTest("nul");

const run = (store: "file" | "postgres", args: string[], stdin?: string) =>
  runCli(args, {
    cwd: runs.repository,
    env: runs.environment(store),
    ...(stdin === undefined ? {} : { stdin }),
  });

/** Queues the answers of the three prompts every face sends: the NUL one, a plain one, a tool run. */
function enqueueAnswers(): void {
  runs.model.enqueue(
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
    cwd: runs.repository,
    env: runs.environment(store),
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
      cwd: runs.repository,
      env: runs.environment(store),
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
        normalise(events, { cwd: runs.repository, home: runs.home }).map(({ type, data }) => ({
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
      runs.model.enqueue({ text: "The answer is 4." });
      const asked = await run("file", ["-p", "What is 2+2?"]);
      expect(asked.code).toBe(0);
      const sessionId = printedSessionId(asked.stderr);
      const exported = await run("file", ["sessions", "export", sessionId, "--format", "jsonl"]);
      const lines = exported.stdout.split("\n");
      const damaged = '{"type":"note","raw":"a\u0000b"';
      const log = [...lines.slice(0, 2), damaged, ...lines.slice(2)].join("\n");
      const file = join(runs.repository, "with-nul.jsonl");
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
