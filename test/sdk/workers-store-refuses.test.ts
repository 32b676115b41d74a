/**
 * A follower's prompt whose owner's store refuses its events (issue 22): the owner's prompt ends
 * with a storage error, and the store, which takes no more events of the session after a batch it
 * refused for good (postgres/appender.ts `BatchRefusedError`), never holds that end. A follower
 * reads the end of its prompt from the store, so its `sendAndWait` (or its editor's
 * `session/prompt`) waited for ever. The owner now tells the follower through the inbox, as it
 * tells a prompt it refused unstored (workers-owner-fails.test.ts): an SDK app gets the
 * `session.error` then `session.idle` the owner's own app would get, an editor the `-32603` a
 * local prompt gets (its prompt's `user.message` refused, or its answer). The refusal is real: a PostgreSQL trigger refuses the `events` row of a
 * prompt's `user.message` or of an answer, by its text.
 */

import { expect, test } from "vitest";
import { approveAll, type TurnloopSession } from "../../src/sdk/index.js";
import { startAcpAgent, withoutIds } from "./workers-acp-support.js";
import { describeWorkers, QUICK_OWNER_CHECK, type Workers } from "./workers-support.js";

/** Makes `url`'s database refuse every `events` row whose line holds `marker`. */
async function refuseRowsWith(url: string, marker: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`
      CREATE OR REPLACE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a test trigger refuses this row';
      END $$;`);
    const name = `refuse_${marker.replaceAll(/\W/g, "_")}`;
    await client.query(
      `CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW
         WHEN (strpos(NEW.data, '${marker}') > 0) EXECUTE FUNCTION refuse_marked()`,
    );
  } finally {
    await client.end();
  }
}

/** What the owner's store says of `types`, refused in session `sessionId` of `url`'s database. */
function storageMessage(url: string, sessionId: string, types: string): string {
  const database = url.replace(/^postgres:\/\/([^:@]*)(:[^@]*)?@/, "postgres://$1@");
  return `${database} (session ${sessionId}) could not be written (the database refuses ${types} of this session for good (`;
}

/**
 * Sends `text` as `editor`'s session/prompt on `sessionId`, expecting it to fail as a local
 * prompt's storage failure is answered (acp/errors.ts `promptFailure`): -32603, errorType
 * `storage`. @returns the error's message.
 */
async function storageFailure(
  editor: ReturnType<typeof startAcpAgent>,
  sessionId: string,
  text: string,
): Promise<string> {
  const failure = await editor.agent
    .request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })
    .catch((error: unknown) => error);
  const { code, message, data } = failure as { code: number; message: string; data: unknown };
  expect({ code, data }).toEqual({ code: -32603, data: { errorType: "storage" } });
  return message;
}

/**
 * A session created on a worker of `workers`, loaded by an editor's ACP agent on another process
 * once the database refuses every `events` row holding `marker` ({@link refuseRowsWith}): runs
 * `check` with them (and the database's `url`), then stops the agent.
 */
async function withRefusingEditor(
  workers: Workers,
  marker: string,
  check: (setup: {
    url: string;
    held: TurnloopSession;
    editor: ReturnType<typeof startAcpAgent>;
  }) => Promise<void>,
): Promise<void> {
  const url = workers.env.TURNLOOP_DATABASE_URL ?? "";
  const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
  await refuseRowsWith(url, marker);
  const editor = startAcpAgent(workers.env, workers.fixture.cwd);
  try {
    await editor.load(held.sessionId);
    await check({ url, held, editor });
  } finally {
    await editor.stop();
  }
}

describeWorkers(
  "the owner's store refuses a follower's prompt",
  (workers) => {
    test("its user.message refused: an SDK follower's sendAndWait rejects with the storage error, session.error then idle", async () => {
      const { fixture, env } = workers;
      const url = env.TURNLOOP_DATABASE_URL ?? "";
      const { held, follower, seen } = await workers.heldAndFollowed();
      await refuseRowsWith(url, "refuse this prompt");
      const requests = fixture.model.requests.length;
      const failure = await follower
        .sendAndWait({ prompt: "refuse this prompt" })
        .catch((error: unknown) => error);
      const message = String(failure).replace(/^Error: /, "");
      // The prompt's user.message is committed before its model request (its own batch).
      expect(message).toBe(
        `${storageMessage(url, held.sessionId, "1 event")}user.message: a test trigger refuses this row); they are lost, and the session takes no more events here: resume it to go on after its last stored event): the prompt was stopped; every event written before is kept`,
      );
      // What the owner's own app gets of the same failure (workers-owner-fails.test.ts).
      expect(seen).toEqual([
        { type: "session.error", data: { errorType: "storage", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
      expect(fixture.model.requests).toHaveLength(requests);
      expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);
    });

    test("its user.message refused: an ACP follower's session/prompt fails with -32603 naming storage; nothing stored", async () => {
      const marker = "a prompt from the editor refused";
      await withRefusingEditor(workers, marker, async ({ url, held, editor }) => {
        const requests = workers.fixture.model.requests.length;
        const message = await storageFailure(editor, held.sessionId, marker);
        expect(message).toContain(
          `The session could not be stored: ${storageMessage(url, held.sessionId, "1 event")}user.message: a test trigger refuses this row)`,
        );
        // Nothing of the prompt was stored or sent to the model, so the editor was told nothing.
        expect(editor.updates).toEqual([]);
        expect(workers.fixture.model.requests).toHaveLength(requests);
        expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);
      });
    });

    test("its answer refused after the prompt was stored: an ACP follower's session/prompt fails with -32603 naming storage", async () => {
      const marker = "an answer the store refuses";
      await withRefusingEditor(workers, marker, async ({ url, held, editor }) => {
        workers.fixture.model.enqueue({ text: marker });
        const message = await storageFailure(editor, held.sessionId, "hello");
        expect(message).toContain(
          `The session could not be stored: ${storageMessage(url, held.sessionId, "3 events")}`,
        );
        // The prompt was stored, titling the session; nothing of the refused answer reached it.
        expect(editor.updates.map(withoutIds)).toEqual([
          { sessionUpdate: "session_info_update", title: "hello", updatedAt: "<time>" },
        ]);
        expect((await held.getMessages()).map((event) => event.type)).toEqual([
          "session.start",
          "user.message",
          "assistant.turn_start",
        ]);
      });
    });
  },
  QUICK_OWNER_CHECK,
);
