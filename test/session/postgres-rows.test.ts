/**
 * Each row of the PostgreSQL store's `events` table is one event (a trial, round 3 session 21): a
 * row rewritten through `data::jsonb` (valid JSON, no trailing `\n`) was read joined to the next
 * row, called damaged, and hid that next event from `sessions show`, `sessions export` and the
 * history sent to the model. Through the built CLI on a real PostgreSQL: a valid row is never
 * damaged, and a damaged row costs only itself.
 */

import { describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { chatMessages } from "../support/harness.js";
import { postgresUnavailable } from "../support/postgres.js";
import { postgresRunsEachTest } from "../support/postgres-runs.js";

/** Three CLI runs per test on a loaded 2-core machine. */
const RUNS = { timeout: 120_000 };

const runs = postgresRunsEachTest("rows");

const run = (args: string[]) => runCli(args, { cwd: runs.repository, env: runs.environment() });

/** Runs one prompt answered "The answer is 4."; @returns its session id and stored rows. */
async function storedSession(): Promise<{ sessionId: string; rows: string[] }> {
  runs.model.enqueue({ text: "The answer is 4." });
  const first = await run(["-p", "What is 2+2?"]);
  expect(first.code).toBe(0);
  const { rows } = await runs.database.pool.query<{ id: string; data: string }>(
    "SELECT session_id AS id, data FROM events ORDER BY seq",
  );
  const sessionId = rows[0]?.id ?? "";
  return { sessionId, rows: rows.map((row) => row.data) };
}

/** The sequence number of the first row of `type` (rows are numbered from 1). */
function seqOf(rows: readonly string[], type: string): number {
  return rows.findIndex((row) => (JSON.parse(row) as { type: string }).type === type) + 1;
}

async function setRow(sessionId: string, seq: number, data: string): Promise<void> {
  await runs.database.pool.query("UPDATE events SET data = $3 WHERE session_id = $1 AND seq = $2", [
    sessionId,
    seq,
    data,
  ]);
}

/** What the model was sent on a resume, as `role: content` lines (the system prompt left out). */
async function historyOnResume(sessionId: string): Promise<string[]> {
  runs.model.enqueue({ text: "Doubled: 8." });
  const resumed = await run(["-p", "Double it.", "--resume", sessionId]);
  expect(resumed.code).toBe(0);
  const messages = chatMessages(runs.model, -1) as Array<{ role: string; content: string }>;
  return messages.slice(1).map((message) => `${message.role}: ${message.content}`);
}

const HISTORY = ["user: What is 2+2?", "assistant: The answer is 4.", "user: Double it."];

describe.skipIf(postgresUnavailable !== undefined)("rows of the PostgreSQL store", () => {
  test(
    "a row rewritten through jsonb is the event it was: shown, exported and sent to the model",
    RUNS,
    async () => {
      const { sessionId, rows } = await storedSession();
      const shownBefore = await run(["sessions", "show", sessionId]);
      const prompt = seqOf(rows, "user.message");
      await runs.database.pool.query(
        "UPDATE events SET data = (data::jsonb)::text WHERE session_id = $1 AND seq = $2",
        [sessionId, prompt],
      );

      const shown = await run(["sessions", "show", sessionId]);
      expect(shown).toEqual(shownBefore);
      const exported = await run(["sessions", "export", sessionId, "--format", "jsonl"]);
      const lines = exported.stdout.split("\n");
      expect(lines.pop()).toBe("");
      // Every event of the log, the rewritten one on a line of its own (its keys reordered).
      expect(lines.map((line) => JSON.parse(line))).toEqual(rows.map((row) => JSON.parse(row)));
      expect(lines.filter((_, index) => index !== prompt - 1)).toEqual(
        rows.filter((_, index) => index !== prompt - 1).map((row) => row.replace(/\n$/, "")),
      );
      expect(await historyOnResume(sessionId)).toEqual(HISTORY);
    },
  );

  test("a damaged row between two good ones is skipped alone", RUNS, async () => {
    const { sessionId, rows } = await storedSession();
    const shownBefore = await run(["sessions", "show", sessionId]);
    const turnStart = seqOf(rows, "assistant.turn_start");
    expect(seqOf(rows, "assistant.message")).toBe(turnStart + 1);
    const damaged = '{"type":"assistant.turn_st';
    await setRow(sessionId, turnStart, damaged);

    const shown = await run(["sessions", "show", sessionId]);
    const [sessionLine, ...rest] = shownBefore.stdout.split("\n");
    expect(shown).toEqual({
      ...shownBefore,
      stdout: [sessionLine, `[damaged line ${turnStart} skipped (invalid_json)]`, ...rest].join(
        "\n",
      ),
      stderr: "turnloop: skipped 1 damaged line while reading (marked under the session line)\n",
    });
    const exported = await run(["sessions", "export", sessionId, "--format", "jsonl"]);
    // The damaged row as it is, on a line of its own; every other row as stored.
    expect(exported.stdout).toBe(
      rows.map((row, index) => (index === turnStart - 1 ? `${damaged}\n` : row)).join(""),
    );
    expect(await historyOnResume(sessionId)).toEqual(HISTORY);
  });
});
