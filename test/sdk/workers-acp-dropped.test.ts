/**
 * ACP on a session another worker holds (issue 22), when that owner closes the session, or its own
 * client aborts, while the editor's prompt waits in its queue: the editor's `session/prompt` ends
 * with the error that says to send it again, in the wording the Copilot protocol's followers get
 * (session/dropped-prompts.ts), and the prompt never runs. A prompt the owner takes from the inbox
 * while its abort waits for the prompt it cancelled to end was sent after the abort: it runs next.
 * The editor's own `session/cancel` of its queued prompt drops it too: that prompt is `cancelled`.
 */

import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { type AcpAgent, startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { ABORTED_PROMPT, holdAnswers, TEXT_PROMPT_STORED, useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "ACP: the owner drops the editor's prompt",
  () => {
    const workers = useWorkers();

    /**
     * The owner's session after a "first" prompt, followed by an editor, while the owner runs
     * "held" (the model holds it); `requestsBefore`: the model's requests before "held".
     * `changes[n]` opens at the owner's (n+1)th `pending_messages.modified` from then on.
     */
    async function ownerRunningHeld(changes = 1) {
      const { fixture, env } = workers;
      const owner = await workers.worker().createSession({ onPermissionRequest: approveAll });
      fixture.model.enqueue({ text: "first answer" });
      await owner.sendAndWait({ prompt: "first" });
      const editor = startAcpAgent(env, fixture.cwd);
      await editor.load(owner.sessionId);
      const requestsBefore = fixture.model.requests.length;
      const storedBefore = (await owner.getMessages()).length;
      const requested = holdAnswers(fixture.model);
      await owner.send({ prompt: "held" });
      await requested.opened;
      const queueChanged = Array.from({ length: changes }, () => gate());
      let changed = 0;
      owner.on((event) => {
        if (event.type === "pending_messages.modified") {
          queueChanged[changed++]?.open();
        }
      });
      return { owner, editor, requestsBefore, storedBefore, queueChanged };
    }

    /**
     * The editor's prompt `settled` ended with the abort's 'send it again'; the editor saw the
     * replay of "first", then "held" and its cancel (nothing of its own prompt); the owner stored "held"
     * aborted, with `aborts` (the `abort`s' data); only "held" reached the model.
     */
    async function expectDroppedByAbort(
      run: Awaited<ReturnType<typeof ownerRunningHeld>>,
      settled: ReturnType<AcpAgent["promptSettled"]>,
      aborts: (droppedPromptId: string) => object[],
    ): Promise<void> {
      const { owner, editor } = run;
      const message = `The model request failed: the worker running session ${owner.sessionId} dropped this queued prompt unrun: its own client aborted; send it again to run it`;
      expect(await settled).toEqual({ error: { code: -32603, message } });
      expect(editor.updates.map(withoutIds)).toEqual([
        text("user_message_chunk", "first"),
        { sessionUpdate: "session_info_update", title: "first", updatedAt: "<time>" },
        text("agent_message_chunk", "first answer"),
        text("user_message_chunk", "held"),
        // The owner's "held" was cancelled: told as a replay tells it (acp/updates.ts).
        text("agent_thought_chunk", "⊘ cancelled\n"),
      ]);
      const stored = (await owner.getMessages()).slice(run.storedBefore);
      const droppedAbort = stored.at(-1);
      const droppedPromptIds =
        droppedAbort?.type === "abort" ? (droppedAbort.data.droppedPromptIds ?? []) : [];
      expect(droppedPromptIds).toEqual([expect.any(String)]);
      const expectedAborts = aborts(droppedPromptIds[0] ?? "");
      expect(stored.map(({ type }) => type)).toEqual([
        ...ABORTED_PROMPT,
        ...expectedAborts.slice(1).map(() => "abort"),
      ]);
      expect(stored.filter(({ type }) => type === "abort").map(({ data }) => data)).toEqual(
        expectedAborts,
      );
      expect(workers.fixture.model.requests.length - run.requestsBefore).toBe(1);
    }

    test("it closes the session with the editor's prompt queued: the prompt ends with 'send it again'", async () => {
      const { owner, editor, requestsBefore, queueChanged } = await ownerRunningHeld();
      try {
        const settled = editor.promptSettled(owner.sessionId, "queued behind the held one");
        await queueChanged[0]?.opened;
        await owner.disconnect();
        workers.fixture.model.setResponder(undefined);
        expect(await settled).toEqual({
          error: {
            code: -32603,
            message: `The model request failed: the worker running session ${owner.sessionId} closed it before this prompt ended; send it again to run it here`,
          },
        });
        // Only the owner's held prompt reached the model.
        expect(workers.fixture.model.requests.length - requestsBefore).toBe(1);
      } finally {
        await editor.stop();
      }
    });

    test("its own client aborts with the editor's prompt queued: the abort returns, the prompt ends with 'send it again'", async () => {
      const run = await ownerRunningHeld();
      const { owner, editor, queueChanged } = run;
      try {
        const settled = editor.promptSettled(owner.sessionId, "queued behind the held one");
        await queueChanged[0]?.opened;
        await owner.abort();
        workers.fixture.model.setResponder(undefined);
        // One abort: the cancelled prompt's, naming the editor's prompt.
        await expectDroppedByAbort(run, settled, (droppedPromptId) => [
          {
            reason: "user_initiated",
            message: "cancelled by the user",
            droppedPromptIds: [droppedPromptId],
          },
        ]);
        await owner.disconnect();
      } finally {
        await editor.stop();
      }
    });

    test("the editor cancels its prompt queued behind the owner's: answered `cancelled` once the owner's abort that dropped it is stored", async () => {
      const run = await ownerRunningHeld();
      const { owner, editor, queueChanged } = run;
      try {
        const answer = editor.prompt(owner.sessionId, "queued behind the held one");
        await queueChanged[0]?.opened;
        await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId: owner.sessionId });
        // Cancelled, as a local queued prompt is (not 'send it again': its own client dropped it).
        expect(await answer).toEqual({ stopReason: "cancelled" });
        workers.fixture.model.setResponder(undefined);
        // Answered after what the abort's commit holds: "held" ended by the same abort.
        expect(editor.updates.map(withoutIds)).toEqual([
          text("user_message_chunk", "first"),
          { sessionUpdate: "session_info_update", title: "first", updatedAt: "<time>" },
          text("agent_message_chunk", "first answer"),
          text("user_message_chunk", "held"),
          text("agent_thought_chunk", "⊘ cancelled\n"),
        ]);
        const stored = (await owner.getMessages()).slice(run.storedBefore);
        expect(stored.map(({ type }) => type)).toEqual(ABORTED_PROMPT);
        expect(stored.at(-1)?.data).toEqual({
          reason: "user_initiated",
          message: "cancelled by the user",
          droppedPromptIds: [expect.any(String)],
        });
        expect(workers.fixture.model.requests.length - run.requestsBefore).toBe(1);
        await owner.disconnect();
      } finally {
        await editor.stop();
      }
    });

    test("the editor's prompt reaching the owner while its abort waits for the cancelled prompt to end runs next, and the abort does not wait for it", async () => {
      const run = await ownerRunningHeld(3);
      const { owner, editor, queueChanged } = run;
      const { model } = workers.fixture;
      try {
        await owner.send({ prompt: "the owner's own, queued" });
        await queueChanged[0]?.opened;
        // The cancelled prompt cannot commit its end (so the abort waits) until this lock goes.
        const lock = await lockSessionRow(workers.env.TURNLOOP_DATABASE_URL ?? "", owner.sessionId);
        const aborted = owner.abort();
        // The abort dropped the owner's own queued prompt (sent before it) and recorded its
        // `abort`, whose commit waits for the lock. Its client hears of neither before that commit
        // (a client sees only what the log holds: held-delivery.ts), so the gate is
        // the owner's connection waiting for the lock.
        await lock.waitedFor();
        const lastMessage = await lock.lastInboxId();
        const settled = editor.promptSettled(owner.sessionId, "sent during the abort");
        // The owner took the editor's prompt from the inbox (a row is deleted as it is taken).
        await lock.takenAfter(lastMessage);
        const editorRequested = gate();
        const finish = gate();
        model.setResponder(() => {
          editorRequested.open();
          return { text: ["for the ", "editor"], pause: { afterEvents: 1, until: finish.opened } };
        });
        await lock.release();
        // The abort returns while the editor's prompt, sent after it, runs (held by the model):
        // waiting for it too, as it once did, this never ended.
        await aborted;
        await editorRequested.opened;
        finish.open();
        expect(await settled).toEqual({ answer: { stopReason: "end_turn" } });
        expect(editor.updates.map(withoutIds)).toEqual([
          text("user_message_chunk", "first"),
          { sessionUpdate: "session_info_update", title: "first", updatedAt: "<time>" },
          text("agent_message_chunk", "first answer"),
          text("user_message_chunk", "held"),
          text("agent_thought_chunk", "⊘ cancelled\n"),
          // A follower gets stored events, not the owner's streaming deltas (README).
          text("agent_message_chunk", "for the editor"),
        ]);
        const stored = (await owner.getMessages()).slice(run.storedBefore);
        expect(stored.map(({ type }) => type)).toEqual([...ABORTED_PROMPT, ...TEXT_PROMPT_STORED]);
        expect(stored.filter(({ type }) => type === "abort").map(({ data }) => data)).toEqual([
          { reason: "user_initiated", message: "cancelled by the user" },
        ]);
        // "held", then the editor's prompt: the owner's own queued one never ran.
        expect(model.requests.length - run.requestsBefore).toBe(2);
        await owner.disconnect();
      } finally {
        await editor.stop();
      }
    });
  },
);

/**
 * Takes the row of `sessionId` in the sessions table of `url`'s database (`FOR NO KEY UPDATE`:
 * the owner's appends wait, the inbox's inserts do not) until `release`. `waitedFor` resolves once
 * another connection waits for the lock; `takenAfter(id)` once a message was posted to the inbox
 * after its row `id` (`lastInboxId`) and every such message of the session was taken.
 */
async function lockSessionRow(
  url: string,
  sessionId: string,
): Promise<{
  waitedFor(): Promise<void>;
  lastInboxId(): Promise<number>;
  takenAfter(id: number): Promise<void>;
  release(): Promise<void>;
}> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1 FROM sessions WHERE id = $1 FOR NO KEY UPDATE", [sessionId]);
  const holder = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  const number = async (sql: string, values: unknown[]) =>
    Number((await client.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0);
  const lastInboxId = () =>
    number("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM inbox_id_seq", []);
  return {
    async waitedFor() {
      const waiting =
        "SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))";
      await expect.poll(() => number(waiting, [holder.rows[0]?.pid])).toBeGreaterThan(0);
    },
    lastInboxId,
    async takenAfter(id: number) {
      const left = "SELECT count(*) AS n FROM inbox WHERE session_id = $1 AND id > $2";
      await expect
        .poll(async () => (await lastInboxId()) > id && (await number(left, [sessionId, id])) === 0)
        .toBe(true);
    },
    async release() {
      await client.query("COMMIT");
      await client.end();
    },
  };
}
