import { execFileSync } from "node:child_process";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type CliResult, runCli } from "../support/cli.js";
import { storedTypes } from "../support/locked-events.js";
import { postgresUnavailable } from "../support/postgres.js";
import { Relay } from "../support/postgres-relay.js";
import { postgresRunsEachTest } from "../support/postgres-runs.js";

/**
 * A fresh user's trial, round 3 session 31 (pg-outage.sh): PostgreSQL went away while `-p` ran a
 * command and stayed away past the store's retries. The command finished, and the second model
 * request went out with its result while nothing could be stored; `-p` then printed the final
 * answer and exited 1, and the command's result and the answer were gone from the log. Now a
 * model request is not sent while the events before it (the tool result it carries) and its
 * `assistant.turn_start` cannot be stored, and `-p`, exiting, tries once more to write what was
 * held back: stored when the database is back by then, else named as lost.
 *
 * The outage is a relay in front of the test database (postgres-relay.ts); the command waits on a
 * FIFO, so the relay is cut while it runs (opening the FIFO for writing returns once the command
 * has opened it for reading) and it finishes once cut.
 */

const runs = postgresRunsEachTest("outage-exit");
const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

/** The rows stored before the command's result: the session, the prompt, the first request. */
const BEFORE_RESULT = [
  "session.start",
  ...["user.message", "assistant.turn_start", "assistant.message", "assistant.usage"],
  "tool.execution_start",
];

/**
 * The store's waits between tries: short (src/session/postgres/database.ts
 * `TURNLOOP_TEST_STORE_RETRY_DELAY_MS`), as many tries; the tests count tries, never time.
 */
const SHORT_RETRIES = { TURNLOOP_TEST_STORE_RETRY_DELAY_MS: "5" };

/**
 * Runs `-p` whose command finishes while the database is cut off; `restore` is called with the
 * relay once `-p` has printed its result (the prompt is over), before it exits. `cut` cuts it off
 * (default: every connection ended, and every new one at once); `env` is added to `-p`'s.
 */
async function runThroughOutage(
  restore: (relay: Relay) => Promise<void>,
  cut: (relay: Relay) => void = (relay) => relay.cut(Number.POSITIVE_INFINITY),
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  const relay = new Relay(new URL(runs.database.url));
  relays.push(relay);
  const relayed = new URL(runs.database.url);
  relayed.port = String(await relay.listen());
  const gate = join(runs.repository, "gate");
  execFileSync("mkfifo", [gate]);
  const command = `cat ${gate} >/dev/null; echo RESULT-OF-COMMAND`;
  runs.model.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "final answer after the outage" },
  );
  let printed: () => void = () => undefined;
  const result = new Promise<void>((resolve) => {
    printed = resolve;
  });
  const run = runCli(["-p", "work", "--allow-all-tools", "--output-format", "json"], {
    cwd: runs.repository,
    env: { ...runs.environment(), TURNLOOP_DATABASE_URL: relayed.href, ...env },
    onStart: (child) => child.stdout?.once("data", () => printed()),
  });
  const opened = await Promise.race([open(gate, "w"), run]);
  if (!("close" in opened)) {
    throw new Error(`-p ended before its command ran: ${JSON.stringify(opened)}`);
  }
  cut(relay);
  await opened.write("go\n");
  await opened.close();
  await Promise.race([result, run]);
  await restore(relay);
  return run;
}

function sessionIdOf(result: CliResult): string {
  return (JSON.parse(result.stdout) as { session_id: string }).session_id;
}

describe.skipIf(postgresUnavailable !== undefined)("-p across a database outage", () => {
  test("back before -p exits: what was held back is stored, and no request went out meanwhile", {
    timeout: 180_000,
  }, async () => {
    // Every connection is ended at the cut, then the batch writes fail as they are sent: the turn
    // end's 7 tries, the prompt's end's one (the store is known down; the third test counts
    // them), then the first try of the exit's last write. The database is back for its second
    // try: no wait is raced.
    const result = await runThroughOutage(
      async () => undefined,
      (relay) => {
        relay.cut(0);
        relay.failWrites(9);
      },
      SHORT_RETRIES,
    );
    expect(relays[0]?.refused).toBe(9);
    expect(result.code).toBe(1);
    const stopped = result.stderr.split("\n").filter((line) => line.startsWith("turnloop:"));
    expect(stopped).toEqual([
      expect.stringMatching(
        /^turnloop: postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \([^)]+\): the prompt was stopped; every event written before is kept$/,
      ),
    ]);
    expect(runs.model.requests).toHaveLength(1);
    const stored = await storedTypes(runs.database.pool, sessionIdOf(result));
    expect(stored).toEqual([
      ...BEFORE_RESULT,
      ...["tool.execution_complete", "assistant.turn_end", "session.error"],
    ]);
    // One model request per stored turn start.
    expect(stored.filter((type) => type === "assistant.turn_start")).toHaveLength(1);
    const { rows } = await runs.database.pool.query<{ data: string }>(
      "SELECT data FROM events WHERE type = 'tool.execution_complete'",
    );
    expect(rows.map((row) => row.data).join("")).toContain("RESULT-OF-COMMAND");
  });

  test("back only after -p exits: no second request, and -p names what is lost", {
    timeout: 180_000,
  }, async () => {
    const result = await runThroughOutage(
      async () => undefined,
      (relay) => relay.cut(Number.POSITIVE_INFINITY),
      SHORT_RETRIES,
    );
    expect(result.code).toBe(1);
    expect(runs.model.requests).toHaveLength(1);
    const stopped = result.stderr.split("\n").filter((line) => line.startsWith("turnloop:"));
    const session = "postgres://postgres@127\\.0\\.0\\.1:\\d+/t_\\w+ \\(session [\\w-]+\\)";
    expect(stopped).toEqual([
      expect.stringMatching(
        new RegExp(
          `^turnloop: ${session} could not be written \\([^)]+\\): the prompt was stopped; every event written before is kept$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^turnloop: ${session} could not be written at exit \\(.+\\): 3 events held back since then are lost \\(tool\\.execution_complete, assistant\\.turn_end, session\\.error\\); a resume goes on after the last stored event$`,
        ),
      ),
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      is_error: true,
      result: "",
      error: { type: "storage" },
    });
    const stored = await storedTypes(runs.database.pool, sessionIdOf(result));
    expect(stored).toEqual(BEFORE_RESULT);
  });

  test("a database that stays away: the checkpoint queued behind the commit that gave up fails at once, the prompt's end tries once, with its cause", {
    timeout: 180_000,
  }, async () => {
    // Only the batch writes fail (their connection ended as each is sent), so the relay counts
    // each try of one; the lease's heartbeat and reads go through. Before, the checkpoint queued
    // behind the commit that gave up ran the whole retry budget (7 tries) again: 21 tries before
    // -p printed its answer, 28 with the exit's (round 3, session 32: -p took about 20 s to exit).
    let tries = 0;
    const result = await runThroughOutage(
      async (relay) => {
        tries = relay.refused;
      },
      (relay) => relay.failWrites(Number.POSITIVE_INFINITY),
      SHORT_RETRIES,
    );
    expect(result.code).toBe(1);
    expect(runs.model.requests).toHaveLength(1);
    const stopped = result.stderr.split("\n").filter((line) => line.startsWith("turnloop:"));
    expect(stopped).toEqual([
      expect.stringMatching(
        /^turnloop: .+ could not be written \(Connection terminated unexpectedly\): the prompt was stopped; every event written before is kept$/,
      ),
      expect.stringMatching(
        /^turnloop: .+ could not be written at exit \(Connection terminated unexpectedly\): 3 events held back since then are lost \(tool\.execution_complete, assistant\.turn_end, session\.error\); a resume goes on after the last stored event$/,
      ),
    ]);
    // The turn end's checkpoint tried 7 times (its retry budget), the checkpoint behind it none,
    // the prompt's end once (the store known down: before, it spent the budget again, 14 tries
    // before -p printed its answer), the exit's last write 7.
    expect([tries, relays[0]?.refused]).toEqual([8, 15]);
    expect(await storedTypes(runs.database.pool, sessionIdOf(result))).toEqual(BEFORE_RESULT);
  });
});
