import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

const fixture = ChildFixture.forEachTest();

const call = (id: string, name: string, args: object) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

/** The finished calls' updates: id, status and content (what an editor draws). */
function finished(updates: acp.SessionUpdate[]) {
  return updates.flatMap((update) =>
    update.sessionUpdate === "tool_call_update" &&
    (update.status === "completed" || update.status === "failed")
      ? [{ toolCallId: update.toolCallId, status: update.status, content: update.content }]
      : [],
  );
}

describe("ACP diffs of edit and create (reference/acp.md ToolCallContent: whole-file text)", () => {
  test("live, in the permission question and in the replay: the whole file before and after", async () => {
    const path = join(fixture.cwd, "notes.txt");
    await writeFile(path, "alpha\nbeta\ngamma\n");
    fixture.server.enqueue(
      call("call_E", "edit", { path: "notes.txt", old_str: "beta", new_str: "BETA" }),
      call("call_O", "create", { path: "notes.txt", file_text: "replaced\n", overwrite: true }),
      call("call_N", "create", { path: "fresh.txt", file_text: "new\n" }),
      { text: "done" },
    );
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "change notes")).toEqual({ stopReason: "end_turn" });
    expect(await readFile(path, "utf8")).toBe("replaced\n");
    const edited = {
      type: "diff",
      path,
      oldText: "alpha\nbeta\ngamma\n",
      newText: "alpha\nBETA\ngamma\n",
    };
    const overwritten = {
      type: "diff",
      path,
      oldText: "alpha\nBETA\ngamma\n",
      newText: "replaced\n",
    };
    const created = {
      type: "diff",
      path: join(fixture.cwd, "fresh.txt"),
      oldText: null,
      newText: "new\n",
    };
    const expected = [
      { toolCallId: "call_E", status: "completed", content: [edited] },
      { toolCallId: "call_O", status: "completed", content: [overwritten] },
      { toolCallId: "call_N", status: "completed", content: [created] },
    ];
    expect(finished(agent.updates(sessionId))).toEqual(expected);
    const questions = agent.behaviour.calls
      .filter((entry) => entry.method === "session/request_permission")
      .map((entry) => {
        const { toolCall } = entry.params as acp.RequestPermissionRequest;
        return { toolCallId: toolCall.toolCallId, content: toolCall.content };
      });
    expect(questions).toEqual([
      { toolCallId: "call_E", content: [edited] },
      { toolCallId: "call_O", content: [overwritten] },
      { toolCallId: "call_N", content: [created] },
    ]);
    expect(await agent.end()).toBe(0);

    const again = await fixture.agentWithSession(sessionId);
    expect(finished(again.updates(sessionId))).toEqual(expected);
  });

  // Trial 37 F2: the question was asked for an edit that could not apply, then the call failed.
  test("an edit that cannot apply fails before anyone is asked", async () => {
    const path = join(fixture.cwd, "twice.txt");
    await writeFile(path, "x\nx\n");
    fixture.server.enqueue(
      call("call_A", "edit", { path: "twice.txt", old_str: "x", new_str: "y" }),
      { text: "it failed" },
    );
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "change x")).toEqual({ stopReason: "end_turn" });
    const message =
      `old_str matches 2 places in ${path} (lines 1, 2); it must match exactly one. Add ` +
      "surrounding lines to old_str to make it unique. The file was not changed.";
    expect(finished(agent.updates(sessionId))).toEqual([
      {
        toolCallId: "call_A",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: message } }],
      },
    ]);
    expect(agent.behaviour.calls.map((entry) => entry.method)).toEqual([]);
    expect(await readFile(path, "utf8")).toBe("x\nx\n");
  });
});
