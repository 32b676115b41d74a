/**
 * The first answer wins between an owner's client and an ACP follower (issue 22): worker A (a
 * real server process) holds a session whose SDK client answers permission questions, and
 * `turnloop acp` on the same database follows it, so each question is open on both. The first
 * answer is applied by A; the other is ignored (A's late one) or withdrawn (the editor's request
 * is cancelled with `$/cancel_request` once A stored the decision).
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import type { PermissionRequest } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { inLogOrder } from "./support.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import {
  ASKED_PROMPT_STORED,
  createCall,
  describeWorkers,
  recordEvents,
} from "./workers-support.js";

describeWorkers("a question open on the owner's client and an ACP follower", (workers) => {
  test("the editor answers first, then A's client: the editor's answer is applied; A's client first: the editor's request is cancelled", async () => {
    const { fixture, env } = workers;
    const firstRan = gate();
    const editorAskedSecond = gate();
    const editorCancelled = gate();
    const askedOnA: PermissionRequest[] = [];
    const onA = await workers.worker().createSession({
      onPermissionRequest: async (request) => {
        askedOnA.push(request);
        if (askedOnA.length === 1) {
          // A late answer: the tool already ran on the editor's.
          await firstRan.opened;
          return { kind: "reject" };
        }
        await editorAskedSecond.opened;
        return { kind: "approve-once" };
      },
    });
    const { seen: seenOnA, idle: idleOnA } = recordEvents(onA, 2);
    onA.on((event) => {
      if (event.type === "tool.execution_complete") {
        firstRan.open();
      }
    });
    const editor = startAcpAgent(env, fixture.cwd, async (_params, signal) => {
      if (editor.permissions.length === 1) {
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      }
      editorAskedSecond.open();
      signal.addEventListener("abort", () => editorCancelled.open(), { once: true });
      // Never answered: A's client answers first.
      return new Promise(() => undefined);
    });
    try {
      const { sessionId } = onA;
      await editor.load(sessionId);
      fixture.model.enqueue(createCall("call_1", "editor.txt"), { text: "Created." });
      const first = await editor.prompt(sessionId, "create editor.txt");
      expect(first).toEqual({ stopReason: "end_turn" });
      await idleOnA[0]?.opened;
      expect(await readFile(join(fixture.cwd, "editor.txt"), "utf8")).toBe("hi");

      fixture.model.enqueue(createCall("call_2", "owner.txt"), { text: "Created too." });
      const second = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "create owner.txt" }],
      });
      expect(second).toEqual({ stopReason: "end_turn" });
      await editorCancelled.opened;
      await idleOnA[1]?.opened;
      expect(await readFile(join(fixture.cwd, "owner.txt"), "utf8")).toBe("hi");

      // Both clients were asked both questions; one decision each, the first answer's.
      expect(askedOnA.map((request) => request.toolCallId)).toEqual(["call_1", "call_2"]);
      expect(editor.permissions.map((request) => request.toolCall.toolCallId)).toEqual([
        "call_1",
        "call_2",
      ]);
      expect(
        inLogOrder(
          seenOnA.filter((event) => event.ephemeral !== true || event.type === "assistant.usage"),
        ).map(({ type }) => type),
      ).toEqual([...ASKED_PROMPT_STORED, ...ASKED_PROMPT_STORED]);
      const decisions = seenOnA.flatMap((event) =>
        event.type === "permission.completed"
          ? [{ toolCallId: event.data.toolCallId, decision: event.data.decision }]
          : [],
      );
      expect(decisions).toEqual([
        { toolCallId: "call_1", decision: "allowed" },
        { toolCallId: "call_2", decision: "allowed" },
      ]);
      // The editor's whole view: each tool call asked once, run once, completed.
      const toolCall = (id: string, file: string) => {
        const path = join(fixture.cwd, file);
        return [
          {
            toolCallId: id,
            title: `Create ${file}`,
            kind: "edit",
            status: "pending",
            locations: [{ path }],
            rawInput: { path: file, file_text: "hi" },
            sessionUpdate: "tool_call",
          },
          {
            toolCallId: id,
            status: "completed",
            content: [{ path, oldText: null, newText: "hi", type: "diff" }],
            sessionUpdate: "tool_call_update",
          },
        ];
      };
      expect(editor.updates.map(withoutIds)).toEqual([
        { title: "create editor.txt", updatedAt: "<time>", sessionUpdate: "session_info_update" },
        ...toolCall("call_1", "editor.txt"),
        text("agent_message_chunk", "Created."),
        ...toolCall("call_2", "owner.txt"),
        text("agent_message_chunk", "Created too."),
      ]);
    } finally {
      await editor.stop();
    }
  }, 60_000);
});
