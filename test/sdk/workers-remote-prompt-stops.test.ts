/**
 * Every prompt's end reaches a client following the session from another process (issue 22):
 * the owner's loop stores how each prompt stopped on its last `assistant.turn_end`
 * (`stopReason`), and a follower sends its client the owner's `session.idle` there. A prompt
 * stopped by `--max-turns` stored nothing saying so (the follower never sent an idle), and one of
 * an autopilot the follower could not know of (an editor's, over ACP: no agent mode stored) was
 * taken to end at its first answer, before autopilot's nudge. Real server processes (two on the
 * file store, two on a real PostgreSQL), a real `turnloop acp`, the fake model; whole arrays.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { type Fixture, fixtureForEachTest } from "./support.js";
import { startTcpServer } from "./tcp-server.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers, recordEvents, seenOf } from "./workers-support.js";

/** What a client following the prompt sees: a call of `view`, its result, then the stop. */
const MAX_TURNS_SEEN = [
  "user.message",
  "assistant.turn_start",
  ...seenOf(["assistant.message", "assistant.usage"]),
  "tool.execution_start",
  "tool.execution_complete",
  "assistant.turn_end",
  "assistant.idle",
  "session.idle",
];

const idles = (seen: readonly WireEvent[]) =>
  seen.filter((event) => event.type === "session.idle").map((event) => event.data);

/**
 * Two server processes on one store (`env`) with `maxTurns: 1` in the user's config, each with a
 * client on one session; B's client sends a prompt whose one turn asks for a tool. @returns the
 * events the `watcher`'s client saw up to its first `session.idle`.
 */
async function stoppedByMaxTurns(
  fixture: Fixture,
  env: Record<string, string>,
  watcher: "A" | "B",
): Promise<WireEvent[]> {
  await writeFile(join(fixture.home, "config.json"), JSON.stringify({ maxTurns: 1 }));
  await writeFile(join(fixture.cwd, "a.txt"), "A\n");
  const workers = [await startTcpServer(fixture, env), await startTcpServer(fixture, env)];
  const clients = workers.map(
    (worker) => new TurnloopClient({ port: worker.port, cwd: fixture.cwd }),
  );
  fixture.onClose(async () => {
    await Promise.all(clients.map((client) => client.stop().catch(() => undefined)));
    await Promise.all(workers.map((worker) => worker.stop()));
  });
  const [clientA, clientB] = clients as [TurnloopClient, TurnloopClient];
  const onA = await clientA.createSession({ onPermissionRequest: approveAll });
  const onB = await clientB.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
  const { seen, idle } = recordEvents(watcher === "A" ? onA : onB, 1);
  fixture.model.enqueue(callingTools(["v1", "view", { path: "a.txt" }]));
  await onB.send({ prompt: "read a.txt" });
  await idle[0]?.opened;
  expect(fixture.model.requests).toHaveLength(1);
  // From the prompt on: A may yet be told of B's `session.resume` when its recording starts.
  return seen.slice(seen.findIndex((event) => event.type === "user.message"));
}

describeWorkers("prompt ends on another worker (PostgreSQL)", (workers) => {
  test("--max-turns: the follower that sent the prompt gets the owner's idle, max_turn_requests", async () => {
    const seen = await stoppedByMaxTurns(workers.fixture, workers.env, "B");
    expect(seen.map((event) => event.type)).toEqual(MAX_TURNS_SEEN);
    expect(idles(seen)).toEqual([{ stopReason: "max_turn_requests", mode: "interactive" }]);
  }, 120_000);
});

describeWorkers(
  "an editor's autopilot prompt followed on another worker (PostgreSQL)",
  (workers) => {
    test("the follower's idle comes once, after task_complete, not at the nudged answer", async () => {
      const { fixture, env } = workers;
      const editor = startAcpAgent(env, fixture.cwd);
      try {
        await editor.agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
          cwd: fixture.cwd,
          mcpServers: [],
        });
        await editor.agent.request(acp.methods.agent.session.setMode, {
          sessionId,
          modeId: "autopilot",
        });
        const { session: follower } = await workers.followerSession(sessionId);
        const { seen, idle } = recordEvents(follower, 1);
        fixture.model.enqueue(
          { text: "Started." },
          callingTools(["done-1", "task_complete", { summary: "all done" }]),
        );
        expect(await editor.prompt(sessionId, "do the task")).toEqual({ stopReason: "end_turn" });
        await idle[0]?.opened;
        expect(seen.map((event) => event.type)).toEqual([
          "user.message",
          "assistant.turn_start",
          ...seenOf(["assistant.message", "assistant.usage"]),
          "assistant.turn_end",
          // Autopilot's nudge: the owner's loop went on.
          "assistant.idle",
          "user.message",
          "assistant.turn_start",
          ...seenOf(["assistant.message", "assistant.usage"]),
          "tool.execution_start",
          "tool.execution_complete",
          "session.task_complete",
          "assistant.turn_end",
          "assistant.idle",
          "session.idle",
        ]);
        // The editor's autopilot prompt: its user.message records the mode (acp-session.ts).
        expect(idles(seen)).toEqual([{ stopReason: "end_turn", mode: "autopilot" }]);
      } finally {
        await editor.stop();
      }
    }, 120_000);
  },
);

const fixture = fixtureForEachTest();

test("two file-store servers: --max-turns stops B's prompt, and A's client gets the idle, max_turn_requests", async () => {
  const seen = await stoppedByMaxTurns(fixture, fixture.env, "A");
  expect(seen.map((event) => event.type)).toEqual(MAX_TURNS_SEEN);
  expect(idles(seen)).toEqual([{ stopReason: "max_turn_requests", mode: "interactive" }]);
}, 120_000);
