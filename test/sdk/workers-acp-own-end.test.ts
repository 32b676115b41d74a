/**
 * ACP on a session another worker holds (issue 22): how the editor's own prompt ends there is told
 * once, by its `session/prompt` answer, as a local prompt's end is (ACP v1 prompt-turn: a failure
 * is a JSON-RPC error, case 17; a cancel is `stopReason: "cancelled"`). The `✗ error: …` or
 * `⊘ cancelled` notice a replay says a prompt's end with (acp/notices.ts `promptEndNotice`) is for
 * prompts with no answer to this client, another client's among them; the follower once sent it
 * for its own prompt too, before the answer that said the same.
 *
 * The follower reads the owner's log behind it (its subscription reads after the owner commits):
 * a cancel sent while the owner had taken the prompt, and started it, unseen by the follower, was
 * answered at once as if the owner had not started it, and the follower took the prompt's stored
 * `user.message` and `abort` for another client's: its user chunk and a `⊘ cancelled` notice
 * (bench/notes/flaky44.md). The last test holds the owner's first write of the prompt with a lock
 * on `events` until the cancel's abort is in the inbox.
 */

import * as acp from "@agentclientprotocol/sdk";
import type { Client } from "pg";
import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { describeWorkers, holdAnswers } from "./workers-support.js";

const REFUSED = "model 'x' does not exist";

describeWorkers("ACP: the end of the editor's own prompt on another worker", (workers) => {
  test.each(["notices", "none"] as const)(
    "a failed prompt is its -32603 answer alone, no notice, as a local prompt's (offer: %s)",
    async (offer) => {
      const { fixture, env } = workers;
      const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
      const editor = startAcpAgent(env, fixture.cwd);
      try {
        await editor.load(held.sessionId, offer === "notices" ? { session: { notices: {} } } : {});
        fixture.model.enqueue({ status: 400, body: { error: { message: REFUSED } } });
        const failure = await editor.agent
          .request(acp.methods.agent.session.prompt, {
            sessionId: held.sessionId,
            prompt: [{ type: "text", text: "hello" }],
          })
          .catch((error: unknown) => error);
        const { code, message, data } = failure as { code: number; message: string; data: unknown };
        // acp/errors.ts `promptFailure`, as test/acp/provider-failures.test.ts's local prompt.
        expect({ code, message, data }).toEqual({
          code: -32603,
          message: `The model request failed: HTTP 400: ${REFUSED}`,
          data: { errorType: "invalid_request", statusCode: 400 },
        });
        // The title its prompt gives; nothing else (the editor shows its own prompt).
        expect(editor.updates.map(withoutIds)).toEqual([
          { sessionUpdate: "session_info_update", title: "hello", updatedAt: "<time>" },
        ]);
        expect(editor.invalid).toEqual([]);
      } finally {
        await editor.stop();
      }
    },
  );

  test.each(["running", "taken unseen"] as const)(
    "a cancelled prompt (%s) is its `cancelled` answer alone; another client's failure is told as a notice",
    async (when) => {
      const { fixture, env } = workers;
      const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
      let idles = 0;
      held.on((event) => {
        idles += event.type === "session.idle" ? 1 : 0;
      });
      const editor = startAcpAgent(env, fixture.cwd);
      const { default: pg } = await import("pg");
      const database = new pg.Client({ connectionString: env.TURNLOOP_DATABASE_URL });
      await database.connect();
      try {
        await editor.load(held.sessionId);
        const requested = holdAnswers(fixture.model);
        if (when === "running") {
          const answer = editor.prompt(held.sessionId, "held");
          await requested.opened;
          await editor.agent.notify(acp.methods.agent.session.cancel, {
            sessionId: held.sessionId,
          });
          expect(await answer).toEqual({ stopReason: "cancelled" });
        } else {
          expect(await cancelTakenUnseen(database, editor, held.sessionId)).toEqual({
            stopReason: "cancelled",
          });
        }
        fixture.model.setResponder(undefined);
        // The app is told the cancelled prompt's idle once its commit is through: sendAndWait
        // resolves at the first idle after the send, so the next prompt waits for that one.
        await expect.poll(() => idles).toBe(1);

        // The owner's own client's prompt fails: this editor has no answer for it, so a notice.
        fixture.model.enqueue({ status: 400, body: { error: { message: REFUSED } } });
        const told = editor.next((update) => update.sessionUpdate === "agent_thought_chunk");
        await expect(held.sendAndWait({ prompt: "from the owner's app" })).rejects.toThrow(REFUSED);
        await told;
        expect(editor.updates.map(withoutIds)).toEqual([
          { sessionUpdate: "session_info_update", title: "held", updatedAt: "<time>" },
          text("user_message_chunk", "from the owner's app"),
          text("agent_thought_chunk", `✗ error: HTTP 400: ${REFUSED}\n`),
        ]);
        expect(editor.invalid).toEqual([]);
      } finally {
        await database.end();
        await editor.stop();
      }
    },
  );
});

/**
 * The prompt "held" sent by `editor`, cancelled once the owner took it from the inbox and began
 * storing it while `editor` can read none of it: `events` is locked (the owner's insert waits; so
 * does the editor's read), then unlocked once the cancel's abort is in the inbox (an `inbox` row
 * noted by a trigger: the owner deletes the row as it takes it). @returns the prompt's answer.
 */
async function cancelTakenUnseen(
  database: Client,
  editor: ReturnType<typeof startAcpAgent>,
  sessionId: string,
): Promise<acp.PromptResponse> {
  await database.query(`
    CREATE TABLE posted (kind text NOT NULL);
    CREATE FUNCTION note_posted() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN INSERT INTO posted VALUES (NEW.kind); RETURN NEW; END $$;
    CREATE TRIGGER note_posted AFTER INSERT ON inbox FOR EACH ROW EXECUTE FUNCTION note_posted();`);
  await database.query("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
  try {
    const answer = editor.prompt(sessionId, "held");
    // The owner's insert: parsing it waits for its lock (pg_stat_activity still shows the query
    // before it); the editor's reads wait with `AccessShareLock`.
    const insertWaits = async () =>
      (
        await database.query(
          `SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass
           AND mode = 'RowExclusiveLock'`,
        )
      ).rowCount;
    await expect.poll(insertWaits, { timeout: 60_000 }).toBe(1);
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const aborts = async () =>
      (await database.query("SELECT 1 FROM posted WHERE kind = 'abort'")).rowCount;
    await expect.poll(aborts, { timeout: 60_000 }).toBe(1);
    await database.query("COMMIT");
    return await answer;
  } finally {
    await database.query("ROLLBACK");
  }
}
