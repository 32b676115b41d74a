/**
 * A permission handler on a follower (issue 22): worker A holds a session and none of its clients
 * registered a handler; a client of worker B that follows it did, so A asks and B's client
 * answers. When B dies with a question open, A stops counting its handler once B's registration
 * expires (it is renewed only while B runs) and denies the call.
 */

import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type PermissionRequest, TurnloopClient } from "../../src/sdk/index.js";
import { TEST_FOLLOWER_EXPIRY_VARIABLE } from "../../src/session/follower-handler.js";
import { gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { inLogOrder } from "./support.js";
import { startTcpServer } from "./tcp-server.js";
import { ASKED_PROMPT_STORED, createCall, recordEvents, useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)("a permission handler on another worker", () => {
  const workers = useWorkers();

  test("A, with no handler, asks B's client; once B is killed with a question open, A denies it", async () => {
    const onA = await workers.worker().createSession({});
    const { seen: seenOnA, idle: idleOnA } = recordEvents(onA, 2);
    // B's registration expires 3 s after its last renewal instead of 10 s: A denies sooner.
    const workerB = await startTcpServer(workers.fixture, {
      ...workers.env,
      [TEST_FOLLOWER_EXPIRY_VARIABLE]: "3000",
    });
    workers.fixture.onClose(() => workerB.stop());
    const clientB = new TurnloopClient({ port: workerB.port, cwd: workers.fixture.cwd });
    const askedOnB: PermissionRequest[] = [];
    const secondAsked = gate();
    const never = gate();
    const onB = await clientB.resumeSession(onA.sessionId, {
      onPermissionRequest: async (request) => {
        askedOnB.push(request);
        if (askedOnB.length === 1) {
          return { kind: "approve-once" };
        }
        secondAsked.open();
        await never.opened;
        return { kind: "approve-once" };
      },
    });

    workers.fixture.model.enqueue(createCall("call_1", "approved.txt"), { text: "Created." });
    const reply = await onB.sendAndWait({ prompt: "create approved.txt" });
    expect(reply?.data.content).toBe("Created.");
    expect(await readFile(join(workers.fixture.cwd, "approved.txt"), "utf8")).toBe("hi");
    await idleOnA[0]?.opened;

    workers.fixture.model.enqueue(createCall("call_2", "denied.txt"), { text: "Not created." });
    await onB.send({ prompt: "create denied.txt" });
    await secondAsked.opened;
    workerB.process.kill("SIGKILL");
    await workerB.exited;
    await idleOnA[1]?.opened;

    expect(
      inLogOrder(
        seenOnA.filter((event) => event.ephemeral !== true || event.type === "assistant.usage"),
      ).map((event) => event.type),
    ).toEqual([...ASKED_PROMPT_STORED, ...ASKED_PROMPT_STORED]);
    expect(askedOnB.map((request) => request.fileName)).toEqual([
      join(workers.fixture.cwd, "approved.txt"),
      join(workers.fixture.cwd, "denied.txt"),
    ]);
    const decisions = seenOnA.flatMap((event) =>
      event.type === "permission.completed" ? [event.data] : [],
    );
    expect(decisions).toEqual([
      expect.objectContaining({ decision: "allowed", scope: "once" }),
      expect.objectContaining({
        toolCallId: "call_2",
        decision: "denied",
        reason: "no user was available to approve it",
      }),
    ]);
    const results = seenOnA.flatMap((event) =>
      event.type === "tool.execution_complete" ? [[event.data.toolCallId, event.data.success]] : [],
    );
    expect(results).toEqual([
      ["call_1", true],
      ["call_2", false],
    ]);
    await expect(access(join(workers.fixture.cwd, "denied.txt"))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
