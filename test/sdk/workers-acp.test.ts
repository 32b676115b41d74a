/**
 * ACP on any worker (issue 22): a real server worker (`--headless --stdio`, spawned by our SDK)
 * holds a session in one PostgreSQL database, and `turnloop acp` (a real child process, driven by
 * the ACP SDK's client) on the same database loads it: the history is replayed, then every event
 * the worker stores arrives as `session/update`s; a `session/prompt` runs on the worker through the
 * inbox, and once the worker let the session go, a prompt claims it and runs in the ACP process.
 */

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import { type Gate, gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { useWorkers } from "./workers-support.js";

/** `turnloop acp` as a child process, with every `session/update` it sent, in order. */
function startAcpAgent(env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, [CLI_PATH, "acp"], { cwd, env });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const updates: acp.SessionUpdate[] = [];
  const waiting: Array<{ matches: (update: acp.SessionUpdate) => boolean; gate: Gate }> = [];
  const app = acp
    .client({ name: "turnloop-workers-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
      for (const waiter of waiting.filter(({ matches }) => matches(params.update))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.gate.open();
      }
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    updates,
    agent: connection.agent,
    stderr: () => stderr,
    /** Settles at the first update (from now on) that `matches`. */
    next(matches: (update: acp.SessionUpdate) => boolean): Promise<void> {
      const waiter = { matches, gate: gate() };
      waiting.push(waiter);
      return waiter.gate.opened;
    },
    async stop(): Promise<void> {
      child.stdin.end();
      await exited;
    },
  };
}

/** An update without the ids that differ from run to run. */
function withoutIds(update: acp.SessionUpdate): object {
  const { messageId: _messageId, ...rest } = update as acp.SessionUpdate & { messageId?: string };
  return "updatedAt" in rest ? { ...rest, updatedAt: "<time>" } : rest;
}

const text = (sessionUpdate: string, content: string) => ({
  sessionUpdate,
  content: { type: "text", text: content },
});

const answered = (content: string) => (update: acp.SessionUpdate) =>
  update.sessionUpdate === "agent_message_chunk" &&
  update.content.type === "text" &&
  update.content.text === content;

describe.skipIf(postgresUnavailable !== undefined)("ACP on a session another worker holds", () => {
  const workers = useWorkers();

  test("session/load replays it and follows it; a prompt runs on its owner, then, once the owner let it go, here", async () => {
    const { fixture, env } = workers;
    const worker = workers.worker();
    const held = await worker.createSession({ onPermissionRequest: approveAll });
    const seenOnWorker: string[] = [];
    held.on((event) => {
      if (event.type === "user.message") {
        seenOnWorker.push(event.data.content);
      }
    });
    fixture.model.enqueue({ text: "first answer" });
    await held.sendAndWait({ prompt: "first" });

    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = held;
      await editor.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: fixture.cwd,
        mcpServers: [],
      });
      const replayed = editor.updates.length;

      // A prompt of the worker's own client: followed here.
      fixture.model.enqueue({ text: "second answer" });
      const second = editor.next(answered("second answer"));
      await held.sendAndWait({ prompt: "second" });
      await second;

      // A prompt of the editor: runs on the worker, answered here when its events end.
      fixture.model.enqueue({ text: "third answer" });
      const third = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "third" }],
      });
      expect(third).toEqual({ stopReason: "end_turn" });
      expect(seenOnWorker).toEqual(["first", "second", "third"]);

      // The worker lets the session go: the editor's next prompt claims it and runs here.
      await held.disconnect();
      fixture.model.enqueue({ text: "fourth answer" });
      const fourth = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "fourth" }],
      });
      expect(fourth).toEqual({ stopReason: "end_turn" });
      expect(fixture.model.requests).toHaveLength(4);

      expect(editor.updates.slice(0, replayed).map(withoutIds)).toEqual([
        text("user_message_chunk", "first"),
        { sessionUpdate: "session_info_update", title: "first", updatedAt: "<time>" },
        text("agent_message_chunk", "first answer"),
      ]);
      expect(editor.updates.slice(replayed).map(withoutIds)).toEqual([
        // Another client's prompt is shown; the editor's own are not echoed.
        text("user_message_chunk", "second"),
        text("agent_message_chunk", "second answer"),
        text("agent_message_chunk", "third answer"),
        // Run here after the claim: the commands of a session opened here, then its answer.
        expect.objectContaining({ sessionUpdate: "available_commands_update" }),
        text("agent_message_chunk", "fourth answer"),
      ]);
    } finally {
      await editor.stop();
    }
  });
});
