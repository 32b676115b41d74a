import { existsSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { eventually } from "../llm/helpers.js";
import { type Gate, gate } from "../support/gate.js";
import type { PermissionAnswerer } from "./client-handlers.js";
import { AcpHarness, requestMessages, type WireMessage } from "./support.js";

const isChunk = (update: acp.SessionUpdate) => update.sessionUpdate === "agent_message_chunk";

/** Wire messages after the answer to the `occurrence`-th prompt, without {@link settle}'s. */
function afterAnswer(current: AcpHarness, occurrence = 0) {
  const after = current.wire.slice(current.answerIndex("session/prompt", occurrence) + 1);
  return withoutRoundTrips(current, after);
}

/**
 * The gate before checking that nothing more comes: a `session/list` round trip. The agent reads
 * its input in order, so it has handled every message sent before (a cancel, a late permission
 * answer) when it answers.
 */
async function settle(current: AcpHarness): Promise<void> {
  await current.client.request(acp.methods.agent.session.list, {});
}

/** `entries` without {@link settle}'s requests and their answers (no other test here lists). */
function withoutRoundTrips(current: AcpHarness, entries: WireMessage[]): WireMessage[] {
  const requests = current.wire.filter((entry) => entry.message.method === "session/list");
  const ids = new Set(requests.map((entry) => entry.message.id));
  const isAnswer = (entry: WireMessage) =>
    entry.direction === "to-client" &&
    entry.message.method === undefined &&
    ids.has(entry.message.id);
  return entries.filter((entry) => !requests.includes(entry) && !isAnswer(entry));
}

function answerOf(current: AcpHarness, occurrence = 0): unknown {
  return current.wire[current.answerIndex("session/prompt", occurrence)]?.message;
}

describe("case 02: cancel while the model streams", () => {
  test("one cancelled answer, nothing after it, the stream is closed, the next prompt is clean", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue(
      { text: Array.from({ length: 200 }, () => "word "), stallAfterEvents: 6 },
      { text: "second", usage: { input: 20, output: 1 } },
    );
    const sessionId = await harness.newSession();
    const running = harness.prompt(sessionId, "write a long text");
    await harness.waitForUpdate(isChunk, 3);
    await harness.cancel(sessionId);
    expect(await running).toEqual({ stopReason: "cancelled" });
    // The model's stream is closed (the fake server notices it on its own time), then nothing more.
    expect(await eventually(() => harness.server.requests[0]?.clientClosed === true)).toBe(true);
    await settle(harness);
    expect(afterAnswer(harness)).toEqual([]);
    expect(answerOf(harness)).toEqual({
      jsonrpc: "2.0",
      id: expect.anything(),
      result: { stopReason: "cancelled" },
    });

    const before = harness.updates(sessionId).length;
    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    const second = harness.updates(sessionId).slice(before).filter(isChunk);
    expect(second.map((update) => (update.content as acp.TextContent).text)).toEqual(["second"]);
    const types = (await harness.persisted(sessionId)).map((event) => event.type);
    expect(types).toContain("abort");
  });

  test("a cancel sent right after the prompt still gets exactly one cancelled answer", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: Array.from({ length: 50 }, () => "x"), stallAfterEvents: 6 });
    const sessionId = await harness.newSession();
    const running = harness.prompt(sessionId, "go");
    await harness.cancel(sessionId);
    expect(await running).toEqual({ stopReason: "cancelled" });
    const answers = harness.wire.filter(
      (entry) =>
        entry.direction === "to-client" && "result" in entry.message && entry.message.id === 2,
    );
    expect(answers).toHaveLength(1);
    const events = await harness.persisted(sessionId);
    expect(
      events.some((event) => event.type === "assistant.message" && event.data.content !== ""),
    ).toBe(false);
  });

  test("an idle cancel does nothing and does not stick to the next prompt", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "normal" });
    const sessionId = await harness.newSession();
    await harness.waitForUpdate((update) => update.sessionUpdate === "available_commands_update");
    const before = harness.wire.length;
    await harness.cancel(sessionId);
    await settle(harness);
    const sent = harness.wire.slice(before).filter((entry) => entry.direction === "to-client");
    expect(withoutRoundTrips(harness, sent)).toEqual([]);
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
  });

  test("$/cancel_request for the prompt request is answered with a cancelled result", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: Array.from({ length: 100 }, () => "x"), stallAfterEvents: 6 });
    const sessionId = await harness.newSession();
    const controller = new AbortController();
    const running = harness.prompt(sessionId, "go", { cancellationSignal: controller.signal });
    await harness.waitForUpdate(isChunk, 2);
    controller.abort();
    expect(await running).toEqual({ stopReason: "cancelled" });
  });
});

describe("case 01 over ACP: cancel while a command runs", () => {
  test("the call ends failed before the cancelled answer; its interrupted result is on disk; the next prompt is valid", async () => {
    const harness = await AcpHarness.start({ face: { allowAllTools: true } });
    const command = "touch running.txt; sleep 30";
    harness.server.enqueue(
      { toolCalls: [{ id: "call_S1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "ok" },
    );
    const sessionId = await harness.newSession();
    const running = harness.prompt(sessionId, "run sleep 30");
    // The command is running once it has written its file: the cancel comes during it.
    expect(await eventually(() => existsSync(join(harness.cwd, "running.txt")))).toBe(true);
    await harness.cancel(sessionId);
    expect(await running).toEqual({ stopReason: "cancelled" });
    const last = harness.updates(sessionId).at(-1);
    expect(last).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_S1",
      status: "failed",
      rawOutput: { error: "cancelled" },
    });
    expect(JSON.stringify(last)).toContain("cancelled");
    const complete = (await harness.persisted(sessionId)).find(
      (event) => event.type === "tool.execution_complete",
    );
    expect(complete?.data).toMatchObject({ toolCallId: "call_S1", success: false });

    expect(await harness.prompt(sessionId, "say ok")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(requestMessages(harness.server, 1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
  });
});

/** Gates a client's permission answer waits for: the cancel sent, the prompt answered. */
interface Moments {
  cancelled: Gate;
  answered: Gate;
}

describe("case 04: cancel while a permission request is pending", () => {
  const variants: Array<[string, (moments: Moments) => PermissionAnswerer, boolean]> = [
    [
      "A: the client answers cancelled",
      ({ cancelled }) =>
        async () => {
          await cancelled.opened;
          return { outcome: { outcome: "cancelled" } };
        },
      true,
    ],
    ["B: the client never answers", () => () => new Promise(() => {}), false],
    [
      "C: the client allows after the prompt was answered cancelled",
      ({ answered }) =>
        async () => {
          await answered.opened;
          return { outcome: { outcome: "selected", optionId: "allow_once" } };
        },
      true,
    ],
  ];

  test.each(variants)("%s", async (_name, answerer, answers) => {
    const harness = await AcpHarness.start();
    const moments = { cancelled: gate(), answered: gate() };
    harness.behaviour.answerPermission = answerer(moments);
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_W1", name: "create", arguments: '{"path":"x.txt","file_text":"X"}' },
        ],
      },
      { text: "ok" },
    );
    const sessionId = await harness.newSession();
    const running = harness.prompt(sessionId, "write x.txt");
    await harness.waitForWire((entry) => entry.message.method === "session/request_permission");
    await harness.cancel(sessionId);
    moments.cancelled.open();
    expect(await running).toEqual({ stopReason: "cancelled" });
    moments.answered.open();
    expect(harness.updates(sessionId).at(-1)).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_W1",
      status: "failed",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: expect.stringMatching(/^Not run: the prompt was cancelled before/),
          },
        },
      ],
    });
    const permissionId = harness.wire.find(
      (entry) => entry.message.method === "session/request_permission",
    )?.message.id;
    const cancelRequest = harness.wire.find((entry) => entry.message.method === "$/cancel_request");
    expect(cancelRequest?.message.params).toEqual({ requestId: permissionId });

    if (answers) {
      // The client's answer (late, for C) reached the agent; settle lets the agent handle it.
      await harness.waitForWire(
        (entry) =>
          entry.direction === "to-agent" &&
          entry.message.id === permissionId &&
          entry.message.method === undefined,
      );
    }
    await settle(harness);
    expect(existsSync(join(harness.cwd, "x.txt"))).toBe(false);
    expect(afterAnswer(harness).filter((entry) => entry.direction === "to-client")).toEqual([]);
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(
      harness.wire.filter((entry) => entry.message.method === "session/request_permission"),
    ).toHaveLength(1);
    const toolMessage = requestMessages(harness.server, 1).find(
      (message) => message.role === "tool",
    );
    expect(toolMessage).toMatchObject({ tool_call_id: "call_W1" });
    const types = (await harness.persisted(sessionId))
      .map((event) => event.type)
      .filter((type) => type.startsWith("permission.") || type === "tool.execution_complete");
    expect(types).toEqual([
      "permission.requested",
      "permission.completed",
      "tool.execution_complete",
    ]);
    // The cancelled prompt is one turn, ended cancelled; no turn started after it (issue 27 item 4).
    const turns = (await harness.persisted(sessionId)).flatMap((event) =>
      event.type === "assistant.turn_end" ? [event.data.status] : [],
    );
    expect(turns).toEqual(["cancelled", "completed"]);
  });
});

describe("case 04, the answer first: a cancelled permission outcome is a cancellation", () => {
  test("the turn ends cancelled and no further turn starts, even before session/cancel arrives", async () => {
    const harness = await AcpHarness.start();
    harness.behaviour.answerPermission = async () => ({ outcome: { outcome: "cancelled" } });
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_W1", name: "create", arguments: '{"path":"x.txt","file_text":"X"}' },
        ],
      },
      { text: "not asked for" },
      { text: "ok" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "write x.txt")).toEqual({ stopReason: "cancelled" });
    // The client's session/cancel comes after the answer: an idle cancel changes nothing.
    await harness.cancel(sessionId);
    expect(harness.server.requests).toHaveLength(1);
    expect(existsSync(join(harness.cwd, "x.txt"))).toBe(false);
    const persisted = (await harness.persisted(sessionId)).map((event) => ({
      type: event.type,
      ...(event.type === "assistant.turn_end" ? { status: event.data.status } : {}),
      ...(event.type === "permission.completed" ? { decision: event.data.decision } : {}),
      ...(event.type === "tool.execution_complete" ? { code: event.data.error?.code } : {}),
    }));
    expect(persisted.slice(1)).toEqual([
      { type: "user.message" },
      { type: "assistant.turn_start" },
      { type: "assistant.message" },
      { type: "assistant.usage" },
      { type: "tool.execution_start" },
      { type: "permission.requested" },
      { type: "permission.completed", decision: "cancelled" },
      { type: "tool.execution_complete", code: "interrupted" },
      { type: "assistant.turn_end", status: "cancelled" },
      { type: "abort" },
    ]);
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
  });
});
