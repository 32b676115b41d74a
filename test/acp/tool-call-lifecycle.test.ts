import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { gate } from "../support/gate.js";
import { choose } from "./client-handlers.js";
import { announced, described, inProgress } from "./expected-updates.js";
import { AcpHarness, normalise } from "./support.js";

/**
 * The ACP tool-call lifecycle (acp.md, tool calls): announced `pending` as soon as the model
 * starts the call, its arguments in an update once complete, `in_progress` only when the tool
 * runs, and a call that never runs goes from pending straight to failed.
 */

const text = (value: string) => ({ type: "content", content: { type: "text", text: value } });

/** The tool-call updates of a session, whole, with the cwd replaced by `<cwd>`. */
function toolUpdates(current: AcpHarness, sessionId: string): unknown[] {
  return normalise(
    current
      .updates(sessionId)
      .filter(
        (update) =>
          update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update",
      ),
    current.cwd,
  );
}

describe("the ACP tool-call lifecycle", () => {
  test("a rejected command: pending, asked, failed with the reason; never in progress", async () => {
    const harness = await AcpHarness.start();
    harness.behaviour.answerPermission = choose("reject_once");
    harness.server.enqueue(
      { toolCalls: [{ id: "call_R", name: "bash", arguments: '{"command":"rm -rf build"}' }] },
      { text: "ok" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "clean up")).toEqual({ stopReason: "end_turn" });
    expect(toolUpdates(harness, sessionId)).toEqual([
      announced("call_R", "bash", "execute"),
      described("call_R", "Run rm -rf build", "execute", { command: "rm -rf build" }),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_R",
        status: "failed",
        content: [text("Permission denied for 'bash': the user declined this call")],
        rawOutput: { error: "denied", outcome: "denied" },
      },
    ]);
  });

  test("an unknown tool and invalid arguments: pending, then failed with the reason", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_U", name: "no_such_tool", arguments: "{}" },
          { id: "call_I", name: "view", arguments: '{"path":5}' },
        ],
      },
      { text: "sorry" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "try")).toEqual({ stopReason: "end_turn" });
    const updates = toolUpdates(harness, sessionId);
    const statuses = (toolCallId: string) =>
      updates
        .filter((update) => (update as { toolCallId: string }).toolCallId === toolCallId)
        .map((update) => (update as { status?: string }).status ?? "arguments");
    expect(statuses("call_U")).toEqual(["pending", "arguments", "failed"]);
    expect(statuses("call_I")).toEqual(["pending", "arguments", "failed"]);
    expect(updates.at(-2)).toMatchObject({
      toolCallId: "call_U",
      status: "failed",
      content: [text(expect.stringContaining("Tool 'no_such_tool' does not exist"))],
    });
    expect(updates.at(-1)).toMatchObject({
      toolCallId: "call_I",
      status: "failed",
      content: [text(expect.stringContaining("Invalid arguments for 'view'"))],
    });
  });

  test("a read that needs no question: pending, arguments, in progress, completed", async () => {
    const harness = await AcpHarness.start();
    await writeFile(join(harness.cwd, "a.txt"), "hi\n");
    harness.server.enqueue(
      { toolCalls: [{ id: "call_V", name: "view", arguments: '{"path":"a.txt"}' }] },
      { text: "read" },
    );
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "read it");
    const statuses = toolUpdates(harness, sessionId).map(
      (update) => (update as { status?: string }).status ?? "arguments",
    );
    expect(statuses).toEqual(["pending", "arguments", "in_progress", "completed"]);
  });

  test("call_0 on every turn: one tool_call per call, under the id the log and the model use", async () => {
    const harness = await AcpHarness.start();
    const call = { id: "call_0", name: "glob", arguments: '{"pattern":"*.none"}' };
    harness.server.enqueue({ toolCalls: [call] }, { toolCalls: [call] }, { text: "done" });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "look twice")).toEqual({ stopReason: "end_turn" });
    const persisted = await harness.persisted(sessionId);
    const ids = persisted.flatMap((event) =>
      event.type === "assistant.message" ? event.data.toolRequests.map((r) => r.toolCallId) : [],
    );
    // The second call_0 collides with the first, so it is renamed before it is announced.
    expect(ids).toEqual(["call_0", expect.stringMatching(/^call_[0-9a-f]{24}$/)]);
    const lifecycle = (toolCallId: string) => [
      announced(toolCallId, "glob", "search"),
      described(toolCallId, "Find *.none", "search", { pattern: "*.none" }, [{ path: "<cwd>" }]),
      inProgress(toolCallId),
      {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "completed",
        content: [text("No files matched the pattern.")],
      },
    ];
    expect(toolUpdates(harness, sessionId)).toEqual([
      ...lifecycle(ids[0] ?? ""),
      ...lifecycle(ids[1] ?? ""),
    ]);
    // The model gets the second call's result back under the id the editor saw.
    const last = harness.server.requests.at(-1)?.body as {
      messages?: Array<Record<string, unknown>>;
    };
    const results = (last.messages ?? []).filter((message) => message.role === "tool");
    expect(results.map((message) => message.tool_call_id)).toEqual(ids);
  });

  test("a long create shows up while its arguments stream", async () => {
    const harness = await AcpHarness.start();
    const body = "x".repeat(2_000);
    const pieces = JSON.stringify({ path: "big.txt", file_text: body }).match(/.{1,100}/g) ?? [];
    // The model stops sending after a few pieces of the arguments until the test has looked.
    const restOfArguments = gate();
    harness.server.enqueue(
      {
        toolCalls: [{ id: "call_C", name: "create", arguments: pieces }],
        pause: { afterEvents: 4, until: restOfArguments.opened },
      },
      { text: "created" },
    );
    const sessionId = await harness.newSession();
    const prompt = harness.prompt(sessionId, "write it");
    // The pending call is on the wire while the model is still sending the arguments.
    await harness.waitForUpdate((update) => update.sessionUpdate === "tool_call");
    expect(harness.server.requests).toHaveLength(1);
    const beforeArguments = harness
      .updates(sessionId)
      .filter((update) => update.sessionUpdate === "tool_call_update");
    expect(beforeArguments).toEqual([]);
    restOfArguments.open();
    await prompt;
    expect(toolUpdates(harness, sessionId)[0]).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "call_C",
      title: "create",
      kind: "edit",
      status: "pending",
    });
  });

  test("usage_update carries the cost and the catalogue's context window for a priced model", async () => {
    const harness = await AcpHarness.start({
      env: { TURNLOOP_MODEL: "openai-chat:gpt-4.1", OPENAI_API_KEY: "test-key" },
    });
    harness.server.enqueue(
      { text: "one", usage: { input: 1000, output: 100 } },
      { text: "two", usage: { input: 2000, output: 10 } },
    );
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    await harness.prompt(sessionId, "second");
    const usage = harness
      .updates(sessionId)
      .filter((update) => update.sessionUpdate === "usage_update");
    // The cost is the session's running total (ACP usage_update.cost).
    expect(usage).toEqual([
      {
        sessionUpdate: "usage_update",
        used: 1100,
        size: 1_000_000,
        cost: { amount: expect.closeTo(0.0028, 10), currency: "USD" },
      },
      {
        sessionUpdate: "usage_update",
        used: 2010,
        size: 1_000_000,
        cost: { amount: expect.closeTo(0.0028 + 0.00408, 10), currency: "USD" },
      },
    ]);
  });
  // A trial of session 17's build (round 3, session 18, #5): a file created empty showed an
  // empty diff; a text line now says it is empty.
  test("a file created empty: its diff and a line saying it is empty", async () => {
    const harness = await AcpHarness.start({ face: { allowAllTools: true } });
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_E", name: "create", arguments: '{"path":"empty.txt","file_text":""}' },
        ],
      },
      { text: "created" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "make it")).toEqual({ stopReason: "end_turn" });
    expect(toolUpdates(harness, sessionId).at(-1)).toMatchObject({
      toolCallId: "call_E",
      status: "completed",
      content: [
        { type: "diff", path: "<cwd>/empty.txt", oldText: null, newText: "" },
        text("(empty file)"),
      ],
    });
  });
});
