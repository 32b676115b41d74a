/**
 * The `settings_ignored` warning of a `session.resume` through another worker (PostgreSQL): an app
 * written for the Copilot SDK resumes, on worker B, a session worker A created, with a setting
 * turnloop does not implement. Whether B follows A's session (A holds it) or opens it (nobody
 * does), and when B later claims the session it followed, the app gets the warning once, and the
 * log keeps it once.
 */

import * as acp from "@agentclientprotocol/sdk";
import {
  approveAll,
  CopilotClient,
  RuntimeConnection,
  type SessionEvent,
} from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { approveAll as approveEach } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers, type Workers } from "./workers-support.js";

const WARNING = {
  warningType: "settings_ignored",
  message:
    "session.resume: turnloop does not implement the Copilot SDK's setting enableCitations and ignores it",
};

/** A Copilot SDK client of a worker of its own (stdio) on the workers' database. */
async function copilotWorker(workers: Workers): Promise<CopilotClient> {
  const client = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: workers.env }),
    workingDirectory: workers.fixture.cwd,
  });
  workers.fixture.onClose(() => client.stop());
  await client.start();
  return client;
}

/** Resumes `sessionId` on `client` with `enableCitations: true`, recording what it is sent. */
async function resumeAsking(client: CopilotClient, sessionId: string) {
  const seen: SessionEvent[] = [];
  const session = await client.resumeSession(sessionId, {
    onPermissionRequest: approveAll,
    enableCitations: true,
    onEvent: (event) => seen.push(event),
  } as Parameters<CopilotClient["resumeSession"]>[1]);
  return { session, seen };
}

const warningsIn = (events: ReadonlyArray<{ type: string; data: unknown }>) =>
  events.flatMap((event) => (event.type === "session.warning" ? [event.data] : []));

describeWorkers("settings_ignored on a resume through another worker", (workers) => {
  test("a follower's app gets the warning once, recorded once; claiming the session later says it no more", async () => {
    const onA = await workers.worker().createSession({ onPermissionRequest: approveEach });
    const { session: onB, seen } = await resumeAsking(await copilotWorker(workers), onA.sessionId);
    const warned = gate();
    const shutdown = gate();
    onB.on((event) => {
      if (event.type === "session.warning") {
        warned.open();
      } else if (event.type === "session.shutdown") {
        shutdown.open();
      }
    });
    if (warningsIn(seen).length === 0) {
      await warned.opened;
    }
    expect(warningsIn(seen)).toEqual([WARNING]);
    expect(warningsIn(await onB.getEvents())).toEqual([WARNING]);

    // A lets the session go; B's next prompt claims it (its session.resume) and runs on B.
    await onA.disconnect();
    await shutdown.opened;
    workers.fixture.model.enqueue({ text: "answered on B" });
    const reply = await onB.sendAndWait({ prompt: "who answers?" });
    expect(reply?.data.content).toBe("answered on B");
    expect(warningsIn(seen)).toEqual([WARNING]);
    expect(warningsIn(await onB.getEvents())).toEqual([WARNING]);
  });

  test("an app that opens, on worker B, a session worker A created and let go gets the warning once", async () => {
    const onA = await workers.worker().createSession({ onPermissionRequest: approveEach });
    await onA.disconnect();
    const { session: onB, seen } = await resumeAsking(await copilotWorker(workers), onA.sessionId);
    workers.fixture.model.enqueue({ text: "answered on B" });
    const reply = await onB.sendAndWait({ prompt: "hello" });
    expect(reply?.data.content).toBe("answered on B");
    expect(warningsIn(seen)).toEqual([WARNING]);
    expect(warningsIn(await onB.getEvents())).toEqual([WARNING]);
  });

  test("when the holder takes no messages (an editor's turnloop acp), the follower's app still gets it once", async () => {
    const { fixture, env } = workers;
    const holder = startAcpAgent(env, fixture.cwd);
    try {
      await holder.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = await holder.agent.request(acp.methods.agent.session.new, {
        cwd: fixture.cwd,
        mcpServers: [],
      });
      // Saved at its first prompt: the follower finds it held.
      fixture.model.enqueue({ text: "held answer" });
      expect(await holder.prompt(sessionId, "from the holder")).toEqual({ stopReason: "end_turn" });
      const { session: onB, seen } = await resumeAsking(await copilotWorker(workers), sessionId);
      const warned = gate();
      onB.on((event) => {
        if (event.type === "session.warning") {
          warned.open();
        }
      });
      if (warningsIn(seen).length === 0) {
        await warned.opened;
      }
      expect(warningsIn(seen)).toEqual([WARNING]);
      // Not in the log: the holder's log is its own.
      expect(warningsIn(await onB.getEvents())).toEqual([]);
    } finally {
      await holder.stop();
    }
  });
});
