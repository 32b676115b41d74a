import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { choose } from "./client-handlers.js";
import { AcpHarness, requestMessages } from "./support.js";

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

function permissionRequests(current: AcpHarness): acp.RequestPermissionRequest[] {
  return current.behaviour.calls
    .filter((call) => call.method === "session/request_permission")
    .map((call) => call.params as acp.RequestPermissionRequest);
}

function finalStatus(current: AcpHarness, toolCallId: string): acp.SessionUpdate | undefined {
  return current
    .updates()
    .filter((update) => update.sessionUpdate === "tool_call_update")
    .filter((update) => update.toolCallId === toolCallId && update.status !== "in_progress")
    .at(-1);
}

describe("session/request_permission", () => {
  test("allow once: the tool_call comes first, the request shows the call and its options (a second allow_always for the command's prefix), the call runs", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue(bash("call_E1", "echo hi"), { text: "done" });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "say hi")).toEqual({ stopReason: "end_turn" });

    const [request] = permissionRequests(harness);
    expect(request).toEqual({
      sessionId,
      toolCall: {
        toolCallId: "call_E1",
        status: "pending",
        title: "Run echo hi",
        kind: "execute",
        rawInput: { command: "echo hi" },
        locations: [],
      },
      options: [
        { optionId: "allow_once", name: "Allow", kind: "allow_once" },
        { optionId: "allow_always", name: "Always allow bash(echo hi)", kind: "allow_always" },
        {
          optionId: "allow_always_prefix",
          name: "Always allow bash(echo hi *)",
          kind: "allow_always",
        },
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        { optionId: "reject_always", name: "Always reject bash(echo hi)", kind: "reject_always" },
      ],
      // Where the command would run: no sandbox policy was chosen (issue 23).
      _meta: { "turnloop/sandbox": { policy: "danger-full-access", network: true } },
    });
    const toolCallAt = harness.wire.findIndex(
      (entry) =>
        entry.message.method === "session/update" &&
        (entry.message.params as acp.SessionNotification).update.sessionUpdate === "tool_call",
    );
    const permissionAt = harness.wire.findIndex(
      (entry) => entry.message.method === "session/request_permission",
    );
    expect(toolCallAt).toBeGreaterThan(-1);
    expect(permissionAt).toBeGreaterThan(toolCallAt);
    // Pending while the user is asked, running only once allowed, then done.
    const statuses = harness.wire.flatMap((entry) => {
      if (entry.message.method === "session/request_permission") {
        return ["asked"];
      }
      const update = (entry.message.params as acp.SessionNotification | undefined)?.update;
      return update !== undefined && "status" in update && update.status != null
        ? [update.status]
        : [];
    });
    expect(statuses).toEqual(["pending", "asked", "in_progress", "completed"]);
    expect(finalStatus(harness, "call_E1")).toMatchObject({
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "hi" } }],
    });
  });

  test("case 05: reject once is not a refusal: the call fails with the reason, the model hears it, the turn ends end_turn", async () => {
    const harness = await AcpHarness.start();
    harness.behaviour.answerPermission = choose("reject_once");
    await mkdir(join(harness.cwd, "build"));
    await writeFile(join(harness.cwd, "build", "keep.txt"), "keep");
    harness.server.enqueue(bash("call_R1", "rm -rf build"), {
      text: "Understood, I will not delete it.",
    });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "clean the build dir")).toEqual({
      stopReason: "end_turn",
    });
    expect(existsSync(join(harness.cwd, "build", "keep.txt"))).toBe(true);
    const declined = "Permission denied for 'bash': the user declined this call";
    expect(finalStatus(harness, "call_R1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_R1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: declined } }],
      rawOutput: { error: "denied", outcome: "denied" },
    });
    const toolMessage = requestMessages(harness.server, 1).find(
      (message) => message.role === "tool",
    );
    expect(toolMessage?.content).toBe(declined);
    const updates = harness.updates(sessionId);
    expect(updates.some((update) => update.sessionUpdate === "user_message_chunk")).toBe(false);
    expect(
      updates.filter((update) => update.sessionUpdate === "agent_message_chunk").at(-1),
    ).toMatchObject({ content: { text: "Understood, I will not delete it." } });
  });

  test("allow always is recorded in the log and still holds after session/load in a new agent", async () => {
    let harness = await AcpHarness.start();
    harness.behaviour.answerPermission = choose("allow_always");
    harness.server.enqueue(bash("call_A1", "echo once"), { text: "ran" });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "run it");
    expect(permissionRequests(harness)).toHaveLength(1);
    const completed = (await harness.persisted(sessionId)).find(
      (event) => event.type === "permission.completed",
    );
    expect(completed?.data).toMatchObject({
      decision: "allowed",
      scope: "session",
      rule: "bash(echo once)",
    });

    harness = await harness.restart();
    harness.behaviour.answerPermission = choose("reject_once");
    await harness.loadSession(sessionId);
    harness.server.enqueue(bash("call_A2", "echo once"), { text: "ran again" });
    expect(await harness.prompt(sessionId, "run it again")).toEqual({ stopReason: "end_turn" });
    expect(permissionRequests(harness)).toHaveLength(0);
    expect(finalStatus(harness, "call_A2")).toMatchObject({ status: "completed" });
  });

  test("reject always: the same command is denied later without asking", async () => {
    const harness = await AcpHarness.start();
    harness.behaviour.answerPermission = choose("reject_always");
    harness.server.enqueue(bash("call_D1", "touch nope"), bash("call_D2", "touch nope"), {
      text: "gave up",
    });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "touch it")).toEqual({ stopReason: "end_turn" });
    expect(permissionRequests(harness)).toHaveLength(1);
    expect(finalStatus(harness, "call_D2")).toMatchObject({ status: "failed" });
    expect(existsSync(join(harness.cwd, "nope"))).toBe(false);
  });

  test("the prefix option grants every call with the command's prefix, never the compound's other parts", async () => {
    const harness = await AcpHarness.start();
    // An editor's user picks the option by its name; `choose` would take the first allow_always.
    harness.behaviour.answerPermission = async () => ({
      outcome: { outcome: "selected", optionId: "allow_always_prefix" },
    });
    harness.server.enqueue(
      bash("call_P1", "git status --short | head -5"),
      bash("call_P2", "git status"),
      bash("call_P3", "git status | wc -l"),
      { text: "looked" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "look")).toEqual({ stopReason: "end_turn" });
    // Asked for the first call and for `wc -l`, which the prefix rule does not cover.
    expect(permissionRequests(harness).map((request) => request.toolCall.toolCallId)).toEqual([
      "call_P1",
      "call_P3",
    ]);
    // The option names the parts still asked, as the terminal's question does.
    expect(permissionRequests(harness).map((request) => request.options[2])).toEqual([
      {
        optionId: "allow_always_prefix",
        name: "Always allow bash(git status *) (head -5 still asks)",
        kind: "allow_always",
      },
      {
        optionId: "allow_always_prefix",
        name: "Always allow bash(git status *) (wc -l still asks)",
        kind: "allow_always",
      },
    ]);
    const rules = (await harness.persisted(sessionId))
      .filter((event) => event.type === "permission.completed")
      .map((event) => (event.data as { rule?: string }).rule);
    expect(rules).toEqual(["bash(git status *)", "bash(git status *)"]);
  });
});
