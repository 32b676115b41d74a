/**
 * `turnloop acp` as a real child process driven by the ACP SDK's client, for the tests of ACP on a
 * session another worker holds (issue 22): every `session/update` it sends, in order, and every
 * `session/request_permission` it asks, answered as the test says.
 */

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { expect } from "vitest";
import { zSessionNotification } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import type { TurnloopSession } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type Gate, gate } from "../support/gate.js";
import type { TcpServer } from "./tcp-server.js";
import { holdAnswers, turnStartStored, type Workers } from "./workers-support.js";

/**
 * How the client answers `session/request_permission` (`signal`: aborted when the agent cancels
 * the request with `$/cancel_request`); by default, it never answers.
 */
export type PermissionAnswer = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

/**
 * `turnloop acp` as a child process, with every `session/update` it sent, in order, and each one's
 * disagreement with ACP v1's schema (`invalid`: empty while all were valid).
 */
export function startAcpAgent(
  env: Record<string, string>,
  cwd: string,
  answerPermission: PermissionAnswer = () => new Promise(() => undefined),
) {
  const child = spawn(process.execPath, [CLI_PATH, "acp"], { cwd, env });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const updates: acp.SessionUpdate[] = [];
  const invalid: unknown[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const waiting: Array<{ matches: (update: acp.SessionUpdate) => boolean; gate: Gate }> = [];
  const app = acp
    .client({ name: "turnloop-workers-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
      const checked = zSessionNotification.safeParse(params);
      if (!checked.success) {
        invalid.push(checked.error.issues);
      }
      for (const waiter of waiting.filter(({ matches }) => matches(params.update))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.gate.open();
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      permissions.push(params);
      return answerPermission(params, signal);
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    child,
    updates,
    invalid,
    permissions,
    agent: connection.agent,
    stderr: () => stderr,
    exited,
    /** Settles at the first update (from now on) that `matches`. */
    next(matches: (update: acp.SessionUpdate) => boolean): Promise<void> {
      const waiter = { matches, gate: gate() };
      waiting.push(waiter);
      return waiter.gate.opened;
    },
    /**
     * `initialize` offering `clientCapabilities`, then `session/load` of `sessionId` (a session
     * another worker holds).
     */
    async load(sessionId: string, clientCapabilities: acp.ClientCapabilities = {}): Promise<void> {
      await connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities,
      });
      await connection.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd,
        mcpServers: [],
      });
    },
    /** Sends `session/prompt` of the text `prompt` to `sessionId`. @returns its answer. */
    prompt(sessionId: string, prompt: string): Promise<acp.PromptResponse> {
      return connection.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: prompt }],
      });
    },
    /**
     * Sends `session/prompt` of the text `prompt` to `sessionId`. @returns the answer, or the
     * error's code and message, once it settles.
     */
    promptSettled(
      sessionId: string,
      prompt: string,
    ): Promise<{ answer: acp.PromptResponse } | { error: { code: number; message: string } }> {
      return connection.agent
        .request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: prompt }],
        })
        .then(
          (answer) => ({ answer }),
          (error: acp.RequestError) => ({ error: { code: error.code, message: error.message } }),
        );
    },
    /** Ends its input (continuing it first, should a test have frozen it) and waits for its exit. */
    async stop(): Promise<void> {
      child.kill("SIGCONT");
      child.stdin.end();
      await exited;
    },
  };
}

/** What `startAcpAgent` returns. */
export type AcpAgent = ReturnType<typeof startAcpAgent>;

/**
 * The frozen `editor` wakes after worker B claimed `sessionId` and ran "sent by B", answered
 * "answered for B": its prompt `waited` ends with the error saying to send it again (JSON-RPC
 * internal error -32603); the updates since `beforePrompt` are B's prompt as any follower sees it,
 * then that message, once (`storedOnA`: the prompt A stored before asking the model, and died,
 * comes first); and the resend of `prompt` runs on B (a claim here would first send the
 * commands and the title of a session opened), its answer the only update; and the model was asked
 * `requests` times in all (so the dropped prompt never ran).
 */
export async function expectToldThenResent(
  editor: AcpAgent,
  model: FakeModelServer,
  run: { sessionId: string; prompt: string; beforePrompt: number; waited: Promise<unknown> },
  requests: number,
  storedOnA?: string,
): Promise<void> {
  editor.child.kill("SIGCONT");
  const message = `another worker took session ${run.sessionId} over before this prompt started; send it again to run it`;
  expect(await run.waited).toEqual({ error: { code: -32603, message } });
  // The first prompt stored titles the session: A's, when A stored one before it died.
  const title = storedOnA ?? "sent by B";
  expect(editor.updates.slice(run.beforePrompt).map(withoutIds)).toEqual([
    ...(storedOnA === undefined ? [] : [text("user_message_chunk", storedOnA)]),
    ...(storedOnA === undefined
      ? []
      : [{ sessionUpdate: "session_info_update", title, updatedAt: "<time>" }]),
    text("user_message_chunk", "sent by B"),
    ...(storedOnA === undefined
      ? [{ sessionUpdate: "session_info_update", title, updatedAt: "<time>" }]
      : []),
    text("agent_message_chunk", "answered for B"),
    // turnloop's own words, not the reply (src/acp/notices.ts): a thought to this client.
    text("agent_thought_chunk", `⚠ ${message}\n`),
  ]);
  expect(editor.invalid).toEqual([]);
  const beforeResend = editor.updates.length;
  model.enqueue({ text: "answered for the editor" });
  const resent = await editor.agent.request(acp.methods.agent.session.prompt, {
    sessionId: run.sessionId,
    prompt: [{ type: "text", text: run.prompt }],
  });
  expect(resent).toEqual({ stopReason: "end_turn" });
  expect(editor.updates.slice(beforeResend).map(withoutIds)).toEqual([
    text("agent_message_chunk", "answered for the editor"),
  ]);
  expect(model.requests).toHaveLength(requests);
}

/** An update without the ids that differ from run to run. */
export function withoutIds(update: acp.SessionUpdate): object {
  const { messageId: _messageId, ...rest } = update as acp.SessionUpdate & { messageId?: string };
  return "updatedAt" in rest ? { ...rest, updatedAt: "<time>" } : rest;
}

/** A text update of kind `sessionUpdate`. */
export const text = (sessionUpdate: string, content: string) => ({
  sessionUpdate,
  content: { type: "text", text: content },
});

/** Whether `update` is the agent message `content`. */
export const answered = (content: string) => (update: acp.SessionUpdate) =>
  update.sessionUpdate === "agent_message_chunk" &&
  update.content.type === "text" &&
  update.content.text === content;

/** A notice as a client is sent it (src/acp/notices.ts): `notices` if it offered them, else `none`. */
export function said(
  offer: "notices" | "none",
  notice: { severity: "warning" | "error"; title: string; words: string },
): object {
  const { severity, title, words } = notice;
  return offer === "notices"
    ? { sessionUpdate: "notice", severity, title, description: words }
    : text("agent_thought_chunk", `⚠ ${words}\n`);
}

/**
 * After the owner of `sessionId` died with a turn open: the editor's next prompt claims the
 * session and runs in the ACP process, answered "answered in the ACP process" (asserted), its
 * updates the commands, the repair of that turn said once as a notice, and the answer.
 */
export async function claimAfterOwnerDied(
  editor: ReturnType<typeof startAcpAgent>,
  model: FakeModelServer,
  sessionId: string,
  offer: "notices" | "none",
  prompt: string,
): Promise<void> {
  const beforeClaim = editor.updates.length;
  model.setResponder(undefined);
  model.enqueue({ text: "answered in the ACP process" });
  const claimed = await editor.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  expect(claimed).toEqual({ stopReason: "end_turn" });
  expect(editor.updates.slice(beforeClaim).map(withoutIds)).toEqual([
    expect.objectContaining({ sessionUpdate: "available_commands_update" }),
    // The turn the owner's held request opened (its assistant.turn_start is stored as the request
    // goes out) is closed as interrupted, and said so once, as a notice (src/acp/notices.ts).
    said(offer, {
      severity: "warning",
      title: "Session log repaired",
      words:
        "turnloop repaired the session log: closed 1 turn left open when its process ended, as interrupted",
    }),
    // No title update: the first prompt stored already titled the session.
    text("agent_message_chunk", "answered in the ACP process"),
    // A client that offers `session` capabilities is new enough for usage (initialize.ts).
    ...(offer === "notices" ? [expect.objectContaining({ sessionUpdate: "usage_update" })] : []),
  ]);
}

/**
 * An editor on a session of a worker that will die: worker A (a real server) holds a new session,
 * `turnloop acp` loads it, offering `session.notices` when `offer` is `notices`, and `run` drives
 * both; then, the model asked twice more in all (A's held request and the claim's, in the ACP
 * process: asserted) and every update valid (asserted), the editor stops, also when `run` throws.
 */
export async function editorOnDyingOwner(
  workers: Workers,
  offer: "notices" | "none",
  run: (parts: { editor: AcpAgent; workerA: TcpServer; onA: TurnloopSession }) => Promise<void>,
): Promise<void> {
  const { fixture, env } = workers;
  const asked = fixture.model.requests.length;
  const { worker: workerA, session: onA } = await workers.ownerSession();
  const editor = startAcpAgent(env, fixture.cwd);
  try {
    await editor.load(onA.sessionId, offer === "notices" ? { session: { notices: {} } } : {});
    await run({ editor, workerA, onA });
    expect(fixture.model.requests).toHaveLength(asked + 2);
    expect(editor.invalid).toEqual([]);
  } finally {
    await editor.stop();
  }
}

/**
 * Kills worker A (SIGKILL) once its open turn on `sessionId` is stored in `url`'s database, not
 * only its model request sent (the turn the claim repairs; CI once killed A before that commit),
 * and resolves when A has exited.
 */
export async function killOwnerMidTurn(
  url: string,
  sessionId: string,
  workerA: TcpServer,
): Promise<void> {
  await turnStartStored(url, sessionId);
  workerA.process.kill("SIGKILL");
  await workerA.exited;
}

/** What an editor following A is sent of {@link killOwnerInItsPrompt}'s prompt, stored before A died. */
export const OWNER_PROMPT_SEEN = [
  text("user_message_chunk", "A's long prompt"),
  { sessionUpdate: "session_info_update", title: "A's long prompt", updatedAt: "<time>" },
];

/**
 * In {@link editorOnDyingOwner}'s `run`: A's own client sends "A's long prompt", which the model
 * holds; once its request came, `whileHeld` runs, then A is killed mid-turn ({@link killOwnerMidTurn}).
 */
export async function killOwnerInItsPrompt(
  workers: Workers,
  { workerA, onA }: { workerA: TcpServer; onA: TurnloopSession },
  whileHeld: () => Promise<void> = async () => undefined,
): Promise<void> {
  const requested = holdAnswers(workers.fixture.model);
  await onA.send({ prompt: "A's long prompt" });
  await requested.opened;
  await whileHeld();
  await killOwnerMidTurn(workers.env.TURNLOOP_DATABASE_URL ?? "", onA.sessionId, workerA);
}
