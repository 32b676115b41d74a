/**
 * `turnloop acp` as a real child process driven by the ACP SDK's client, for the tests of ACP on a
 * session another worker holds (issue 22): every `session/update` it sends, in order, and every
 * `session/request_permission` it asks, answered as the test says.
 */

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { CLI_PATH } from "../support/cli.js";
import { type Gate, gate } from "../support/gate.js";

/**
 * How the client answers `session/request_permission` (`signal`: aborted when the agent cancels
 * the request with `$/cancel_request`); by default, it never answers.
 */
export type PermissionAnswer = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

/** `turnloop acp` as a child process, with every `session/update` it sent, in order. */
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
  const permissions: acp.RequestPermissionRequest[] = [];
  const waiting: Array<{ matches: (update: acp.SessionUpdate) => boolean; gate: Gate }> = [];
  const app = acp
    .client({ name: "turnloop-workers-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
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
    /** `initialize`, then `session/load` of `sessionId` (a session another worker holds). */
    async load(sessionId: string): Promise<void> {
      await connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      await connection.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd,
        mcpServers: [],
      });
    },
    async stop(): Promise<void> {
      child.stdin.end();
      await exited;
    },
  };
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
