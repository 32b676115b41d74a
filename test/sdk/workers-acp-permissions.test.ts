/**
 * An ACP follower as a permission handler (issue 22): worker A (a real server process) holds a
 * session and none of its clients registered a handler; `turnloop acp` on the same database loads
 * it, which registers the ACP client as one, so A asks, the editor gets
 * `session/request_permission`, and its choice goes to A through the inbox. When the `acp`
 * process is killed with a question open, A stops counting it once its registration expires and
 * denies the call.
 */

import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { TEST_FOLLOWER_EXPIRY_VARIABLE } from "../../src/session/follower-handler.js";
import { gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { inLogOrder } from "./support.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { ASKED_PROMPT_STORED, createCall, recordEvents, useWorkers } from "./workers-support.js";

const OPTIONS = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

describe.skipIf(postgresUnavailable !== undefined)("an ACP follower answers permissions", () => {
  const workers = useWorkers();

  test("A, with no handler, asks the editor; once the acp process is killed with a question open, A denies it", async () => {
    const { fixture, env } = workers;
    const onA = await workers.worker().createSession({});
    const { seen: seenOnA, idle: idleOnA } = recordEvents(onA, 2);
    const secondAsked = gate();
    // The acp process's registration expires 3 s after its last renewal instead of 10 s.
    const followerEnv = { ...env, [TEST_FOLLOWER_EXPIRY_VARIABLE]: "3000" };
    const editor = startAcpAgent(followerEnv, fixture.cwd, async () => {
      if (editor.permissions.length === 1) {
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      }
      secondAsked.open();
      return new Promise(() => undefined);
    });
    const { sessionId } = onA;
    await editor.load(sessionId);

    fixture.model.enqueue(createCall("call_1", "approved.txt"), { text: "Created." });
    const first = await editor.prompt(sessionId, "create approved.txt");
    expect(first).toEqual({ stopReason: "end_turn" });
    expect(await readFile(join(fixture.cwd, "approved.txt"), "utf8")).toBe("hi");
    await idleOnA[0]?.opened;

    fixture.model.enqueue(createCall("call_2", "denied.txt"), { text: "Not created." });
    const second = editor.agent
      .request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "create denied.txt" }],
      })
      .catch(() => "the acp process is gone");
    await secondAsked.opened;
    editor.child.kill("SIGKILL");
    await editor.exited;
    expect(await second).toBe("the acp process is gone");
    await idleOnA[1]?.opened;

    // The editor was asked exactly A's questions, with the titles A stored.
    const askedByA = seenOnA.flatMap((event) =>
      event.type === "permission.requested"
        ? [{ toolCallId: event.data.toolCallId, title: event.data.title }]
        : [],
    );
    expect(askedByA.map(({ toolCallId }) => toolCallId)).toEqual(["call_1", "call_2"]);
    expect(editor.permissions).toEqual(
      askedByA.map((toolCall) => ({
        sessionId,
        toolCall: { ...toolCall, status: "pending" },
        options: OPTIONS,
      })),
    );
    expect(
      inLogOrder(
        seenOnA.filter((event) => event.ephemeral !== true || event.type === "assistant.usage"),
      ).map((event) => event.type),
    ).toEqual([...ASKED_PROMPT_STORED, ...ASKED_PROMPT_STORED]);
    const decisions = seenOnA.flatMap((event) =>
      event.type === "permission.completed" ? [event.data] : [],
    );
    expect(decisions).toEqual([
      expect.objectContaining({ toolCallId: "call_1", decision: "allowed", scope: "once" }),
      expect.objectContaining({
        toolCallId: "call_2",
        decision: "denied",
        reason: "no user was available to approve it",
      }),
    ]);
    await expect(access(join(fixture.cwd, "denied.txt"))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
