/**
 * What the tests of sessions served by several workers share (issue 22): the SDK fixture (fake
 * model, home, cwd) and a database of their own on the test PostgreSQL, set up before the
 * describe block's tests and removed after them.
 */

import { afterAll, beforeAll, describe, expect } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient, type TurnloopSession } from "../../src/sdk/index.js";
import { TEST_OWNER_CHECK_VARIABLE } from "../../src/session/owner-watch.js";
import { CLI_PATH } from "../support/cli.js";
import { FAILED_TURN } from "../support/event-sequences.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type Gate, gate } from "../support/gate.js";
import {
  createTestDatabase,
  postgresUnavailable,
  queryUntil,
  type TestDatabase,
} from "../support/postgres.js";
import { type Fixture, startFixture } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

export interface Workers {
  readonly fixture: Fixture;
  /** The environment every worker runs in: the fixture's, with the database's URL. */
  readonly env: Record<string, string>;
  /** A worker: a server process of its own (`--headless --stdio`), on the shared database. */
  worker(): ReturnType<Fixture["client"]>;
  /** A worker as a TCP server process (`--headless --port 0`), stopped when the fixture closes. */
  tcpWorker(): Promise<TcpServer>;
  /**
   * The owner: a `tcpWorker()` and the session its own `TurnloopClient` created there, approving
   * every permission question.
   */
  ownerSession(): Promise<{ worker: TcpServer; session: TurnloopSession }>;
  /** A follower: a `tcpWorker()` and `sessionId` resumed by its own client, approving all. */
  followerSession(sessionId: string): Promise<{ worker: TcpServer; session: TurnloopSession }>;
  /**
   * A session `held` by one `worker()` (created by its client) and resumed by another's client,
   * the `follower`, both approving all; `seen`: every event the follower gets, as `{type, data}`.
   */
  heldAndFollowed(): Promise<{
    held: TurnloopSession;
    follower: TurnloopSession;
    seen: Array<{ type: string; data: unknown }>;
  }>;
  /**
   * Worker B's own client claims `sessionId` (a new epoch) and runs the prompt "sent by B",
   * answered "answered for B" (asserted). @returns B's session.
   */
  claimAndRun(sessionId: string): Promise<TurnloopSession>;
}

/**
 * For {@link describeWorkers}' `extraEnv`: followers check their owner's lease every 250 ms, not
 * 2 s (the test-only `TURNLOOP_TEST_OWNER_CHECK_MS`), for tests that wait for a follower to see
 * its owner gone or its lease lapsed.
 */
export const QUICK_OWNER_CHECK = { [TEST_OWNER_CHECK_VARIABLE]: "250" };

/**
 * Registers the set-up and clean-up hooks; the fields are usable inside tests. `extraEnv`: more
 * variables for every worker (a test-only timing such as `TURNLOOP_TEST_LEASE_MS`).
 */
export function useWorkers(extraEnv: Record<string, string> = {}): Workers {
  let fixture: Fixture | undefined;
  let database: TestDatabase | undefined;
  let env: Record<string, string> | undefined;
  beforeAll(async () => {
    fixture = await startFixture();
    database = await createTestDatabase();
    env = { ...fixture.env, ...extraEnv, TURNLOOP_DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });
  const ready = () => {
    if (fixture === undefined || env === undefined) {
      throw new Error("useWorkers: the fields are set in beforeAll; use them inside tests");
    }
    return { fixture, env };
  };
  return {
    get fixture() {
      return ready().fixture;
    },
    get env() {
      return ready().env;
    },
    worker() {
      const { fixture: started, env: workerEnv } = ready();
      return started.client({ cliPath: CLI_PATH, cwd: started.cwd, env: workerEnv });
    },
    async tcpWorker() {
      const { fixture: started, env: workerEnv } = ready();
      const server = await startTcpServer(started, workerEnv);
      started.onClose(() => server.stop());
      return server;
    },
    async ownerSession() {
      const worker = await this.tcpWorker();
      const client = new TurnloopClient({ port: worker.port, cwd: ready().fixture.cwd });
      const session = await client.createSession({ onPermissionRequest: approveAll });
      return { worker, session };
    },
    async followerSession(sessionId) {
      const worker = await this.tcpWorker();
      const client = new TurnloopClient({ port: worker.port, cwd: ready().fixture.cwd });
      const session = await client.resumeSession(sessionId, { onPermissionRequest: approveAll });
      return { worker, session };
    },
    async heldAndFollowed() {
      const held = await this.worker().createSession({ onPermissionRequest: approveAll });
      const follower = await this.worker().resumeSession(held.sessionId, {
        onPermissionRequest: approveAll,
      });
      const seen: Array<{ type: string; data: unknown }> = [];
      follower.on((event) => {
        seen.push({ type: event.type, data: event.data });
      });
      return { held, follower, seen };
    },
    async claimAndRun(sessionId) {
      const onB = await this.worker().resumeSession(sessionId, { onPermissionRequest: approveAll });
      ready().fixture.model.enqueue({ text: "answered for B" });
      const answeredB = await onB.sendAndWait({ prompt: "sent by B" });
      expect(answeredB?.data.content).toBe("answered for B");
      return onB;
    },
  };
}

/**
 * A describe block `name` whose `tests` get `useWorkers(extraEnv)`'s fields; skipped while
 * `postgresUnavailable` says no test PostgreSQL can be had (see test/support/postgres.ts).
 */
export function describeWorkers(
  name: string,
  tests: (workers: Workers) => void,
  extraEnv: Record<string, string> = {},
): void {
  describe.skipIf(postgresUnavailable !== undefined)(name, () => {
    tests(useWorkers(extraEnv));
  });
}

/** The stored events of a prompt answered with text. */
export const TEXT_PROMPT_STORED = [
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
];

/**
 * What an SDK client sees of `stored` events: each, with Copilot's ephemeral `session.usage_info`
 * (which its server derives, a follower's as the owner's) before each `assistant.usage`, and
 * both before the reply's `assistant.message` they follow in the log (Copilot's order:
 * src/server/usage-order.ts).
 */
export function seenOf(stored: readonly string[]): string[] {
  return stored.flatMap((type, index) => {
    if (type === "assistant.message" && stored[index + 1] === "assistant.usage") {
      return [];
    }
    if (type !== "assistant.usage") {
      return [type];
    }
    const reply = stored[index - 1] === "assistant.message" ? ["assistant.message"] : [];
    return ["session.usage_info", type, ...reply];
  });
}

/**
 * What an SDK client sees of a prompt answered with text: its stored events (and the usage
 * info, {@link seenOf}), then Copilot's `assistant.idle` and the `session.idle`.
 */
export const TEXT_PROMPT = [...seenOf(TEXT_PROMPT_STORED), "assistant.idle", "session.idle"];

/**
 * What a client sees of a prompt aborted mid-turn before any reply: the prompt, its turn's start
 * and failed end, then the abort.
 */
export const ABORTED_PROMPT = ["user.message", ...FAILED_TURN, "abort"] as const;

/** The stored events of a prompt that ran a tool after a permission question, then answered. */
export const ASKED_PROMPT_STORED = [
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "tool.execution_start",
  "permission.requested",
  "permission.completed",
  "tool.execution_complete",
  "assistant.turn_end",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
];

/** What an SDK client sees of {@link ASKED_PROMPT_STORED}'s prompt: then the two idles. */
export const ASKED_PROMPT = [...seenOf(ASKED_PROMPT_STORED), "assistant.idle", "session.idle"];

/**
 * Makes `model` start each answer and never finish it (a turn that runs until aborted or its
 * worker dies); `setResponder(undefined)` undoes it. @returns the gate opened at the first request.
 */
export function holdAnswers(model: FakeModelServer): Gate {
  const requested = gate();
  const never = gate();
  model.setResponder(() => {
    requested.open();
    return { text: ["never ", "finished"], pause: { afterEvents: 1, until: never.opened } };
  });
  return requested;
}

/** The model's answer that calls the `create` tool (which asks permission) to write `path`. */
export const createCall = (id: string, path: string) => ({
  toolCalls: [{ id, name: "create", arguments: JSON.stringify({ path, file_text: "hi" }) }],
});

/**
 * Records every event `session` sends, in order; `idle[n]` opens at its (n+1)th `session.idle`.
 */
export function recordEvents(
  session: { on(handler: (event: WireEvent) => void): () => void },
  idles: number,
): { seen: WireEvent[]; idle: Gate[] } {
  const seen: WireEvent[] = [];
  const idle = Array.from({ length: idles }, () => gate());
  session.on((event) => {
    seen.push(event);
    if (event.type === "session.idle") {
      idle[seen.filter((earlier) => earlier.type === "session.idle").length - 1]?.open();
    }
  });
  return { seen, idle };
}

/**
 * Sends `prompt` again on `session`, answered "answered for C", then "marker", answered "the
 * marker's answer" (both asserted): queued behind anything the new owner took, so a dropped prompt
 * run late would come before them.
 */
export async function resendThenMarker(
  session: TurnloopSession,
  model: FakeModelServer,
  prompt: string,
): Promise<void> {
  model.enqueue({ text: "answered for C" });
  const resent = await session.sendAndWait({ prompt });
  expect(resent?.data.content).toBe("answered for C");
  model.enqueue({ text: "the marker's answer" });
  const marker = await session.sendAndWait({ prompt: "marker" });
  expect(marker?.data.content).toBe("the marker's answer");
}

/**
 * Resolves once no prompt waits in the inbox of `url`'s database (its owner took them: a take
 * deletes the row and announces nothing, so this queries until then: `queryUntil`).
 */
export function inboxPromptsTaken(url: string): Promise<void> {
  return queryUntil(url, "SELECT 1 FROM inbox WHERE kind = 'prompt'", [], (rows) =>
    expect(rows).toEqual([]),
  );
}

/** Opens once a prompt waits in the inbox of `url`'s database (at its `NOTIFY`, never by time). */
export async function promptInInbox(
  url: string,
): Promise<{ stored: Promise<void>; end(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const stored = gate();
  const look = async () => {
    const { rows } = await client.query("SELECT 1 FROM inbox WHERE kind = 'prompt'");
    if (rows.length > 0) {
      stored.open();
    }
  };
  client.on("notification", () => {
    look().catch(() => undefined);
  });
  await client.query("LISTEN turnloop_inbox");
  return { stored: stored.opened, end: () => client.end() };
}

/**
 * Resolves once `sessionId`'s events stored in `url`'s database hold an `assistant.turn_start`
 * (a worker's open turn committed, not only its model request sent: a kill before the commit
 * leaves no turn to repair). Queries until then (`queryUntil`).
 */
export function turnStartStored(url: string, sessionId: string): Promise<void> {
  const sql = "SELECT 1 FROM events WHERE session_id = $1 AND type = 'assistant.turn_start'";
  return queryUntil(url, sql, [sessionId], (rows) => expect(rows).not.toEqual([]));
}

/**
 * Opens once a session's holder published a live event of `type` to the workers following it on
 * `url`'s database (`NOTIFY turnloop_live`, session/postgres/live.ts), as a follower's listening
 * connection gets it: a gate for killing the holder only after it was sent. `end` closes it.
 */
export async function liveEventSent(
  url: string,
  type: string,
): Promise<{ sent: Promise<void>; end(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sent = gate();
  client.on("notification", (message) => {
    if (
      (JSON.parse(message.payload ?? "{}") as { event?: { type?: string } }).event?.type === type
    ) {
      sent.open();
    }
  });
  await client.query("LISTEN turnloop_live");
  return { sent: sent.opened, end: () => client.end() };
}
