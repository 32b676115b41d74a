import {
  approveAll,
  type CopilotSession,
  defineTool,
  type SessionEvent,
} from "@github/copilot-sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, recordEvents, requestMessages } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * Issue 25, pending-work resume (the Copilot SDK's `pending_work_resume.e2e.test.ts`, its
 * scenarios and recorded snapshots): an app's tool call or permission question still waiting when
 * the app's client goes away is kept; a new client resumes with `continuePendingWork: true`,
 * answers it by its request id, and the prompt goes on; with `false` a joining client leaves
 * live work alone and a client resuming work nobody was attached to cancels it. Two official
 * `@github/copilot-sdk` clients connect to one `turnloop --headless --port` process.
 */

const fixture = fixtureForFile();
let server: TcpServer;
let stderr = "";
const stderrWaiters: Array<() => void> = [];

beforeAll(async () => {
  server = await startTcpServer(fixture);
  server.process.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
    for (const waiter of stderrWaiters.splice(0)) {
      waiter();
    }
  });
});
afterAll(async () => {
  await server.stop();
});

/** Resolves once the server said on stderr that it keeps `sessionId` for a resume. */
function keptForResume(sessionId: string): Promise<void> {
  const said = () => stderr.includes(`session ${sessionId}: the last app left`);
  return new Promise((resolve) => {
    const check = () => (said() ? resolve() : stderrWaiters.push(check));
    check();
  });
}

/** A tool `name` taking `{value}`, answered by `handler`. */
function valueTool(name: string, handler: (value: string) => string | Promise<string>) {
  return defineTool(name, {
    description: `Looks up a value (${name})`,
    parameters: z.object({ value: z.string() }),
    handler: ({ value }) => handler(value),
  });
}

/** A handler that never answers and opens `started` with the value it was called with. */
function neverAnswering(started: { open(): void }, values: string[] = []) {
  return (value: string) => {
    values.push(value);
    started.open();
    return new Promise<string>(() => undefined);
  };
}

/** `[type, key data]` of the events an app saw, for whole-sequence comparisons. */
function outline(events: readonly SessionEvent[]): unknown[] {
  return events.map((event) => {
    switch (event.type) {
      case "tool.execution_start":
        return [event.type, event.data.toolCallId];
      case "tool.execution_complete":
        return [event.type, event.data.toolCallId, event.data.success];
      case "external_tool.requested":
        return [event.type, event.data.toolCallId];
      case "external_tool.completed": {
        // turnloop's fields beside the SDK's `requestId`.
        const data = event.data as { toolCallId?: string; status?: string };
        return [event.type, data.toolCallId, data.status];
      }
      case "permission.completed":
        return [event.type, event.data.result.kind];
      case "assistant.message":
        return [event.type, event.data.content];
      default:
        return [event.type];
    }
  });
}

/** The `session.resume` events of the session's log, as the app reads them. */
async function resumeEvents(session: CopilotSession) {
  const events = await session.getEvents();
  return events.flatMap((event) =>
    event.type === "session.resume"
      ? [
          {
            continuePendingWork: event.data.continuePendingWork,
            sessionWasActive: event.data.sessionWasActive,
          },
        ]
      : [],
  );
}

/** The role and content of the messages of model request `index`, the system prompt left out. */
function sent(index: number): unknown[] {
  return requestMessages(fixture.model, index)
    .filter((message) => message.role !== "system")
    .map((message) =>
      message.role === "tool"
        ? ["tool", message.tool_call_id, message.content]
        : [message.role, message.content ?? null],
    );
}

/** What the app that asked saw until it went away: the prompt up to the open question or call. */
const UNTIL_ASKED = [
  ["user.message"],
  ["assistant.turn_start"],
  ["assistant.message", ""],
  ["assistant.usage"],
  ["session.usage_info"],
];

/** The rest of the prompt once the answer came: the final reply and the end. */
const FINAL_TURN = (reply: string) => [
  ["assistant.turn_end"],
  ["assistant.turn_start"],
  ["assistant.message", reply],
  ["assistant.usage"],
  ["session.usage_info"],
  ["assistant.turn_end"],
  ["session.idle"],
];

describe("pending work kept for a resume", () => {
  test("a permission question left open is answered by the client that resumes with continuePendingWork: true", async () => {
    const first = await server.copilotClient();
    const asked = gate();
    const original = await first.createSession({
      tools: [valueTool("resume_permission_tool", (value) => `ORIGINAL_SHOULD_NOT_RUN_${value}`)],
      onPermissionRequest: () => {
        asked.open();
        return new Promise(() => undefined);
      },
    });
    const firstSaw = recordEvents(original);
    const from = fixture.model.requests.length;
    fixture.model.enqueue(
      callingTools(["call_permission", "resume_permission_tool", { value: "alpha" }]),
      { text: "The result is PERMISSION_RESUMED_ALPHA." },
    );
    await original.send({
      prompt: "Use resume_permission_tool with value 'alpha', then reply with the result.",
    });
    await asked.opened;
    const kept = keptForResume(original.sessionId);
    await first.forceStop();
    await kept;

    const second = await server.copilotClient();
    const resumed = await second.resumeSession(original.sessionId, {
      continuePendingWork: true,
      onPermissionRequest: () => ({ kind: "no-result" }),
      tools: [
        valueTool("resume_permission_tool", (value) => `PERMISSION_RESUMED_${value.toUpperCase()}`),
      ],
    });
    const secondSaw = recordEvents(resumed);
    const idle = nextEvent(resumed, (event) => event.type === "session.idle");
    const question = firstSaw.find((event) => event.type === "permission.requested");
    const pending = await resumed.rpc.permissions.pendingRequests();
    expect(pending.items).toEqual([
      { requestId: question?.data.requestId, request: question?.data.permissionRequest },
    ]);
    const answer = await resumed.rpc.permissions.handlePendingPermissionRequest({
      requestId: question?.data.requestId ?? "",
      result: { kind: "approve-once" },
    });
    expect(answer.success).toBe(true);
    await idle;

    expect(outline(firstSaw)).toEqual([
      ...UNTIL_ASKED,
      ["tool.execution_start", "call_permission"],
      ["permission.requested"],
    ]);
    expect(outline(secondSaw)).toEqual([
      ["permission.completed", "approved"],
      ["tool.execution_running"],
      ["external_tool.requested", "call_permission"],
      ["external_tool.completed", "call_permission", "completed"],
      ["tool.execution_complete", "call_permission", true],
      ...FINAL_TURN("The result is PERMISSION_RESUMED_ALPHA."),
    ]);
    expect(sent(from + 1)).toEqual([
      ["user", "Use resume_permission_tool with value 'alpha', then reply with the result."],
      ["assistant", null],
      ["tool", "call_permission", "PERMISSION_RESUMED_ALPHA"],
    ]);
    expect(await resumeEvents(resumed)).toEqual([
      { continuePendingWork: true, sessionWasActive: false },
    ]);
    expect((await resumed.rpc.permissions.pendingRequests()).items).toEqual([]);
    await resumed.disconnect();
  });

  test("a call of the app's tool left waiting is answered by a client that resumes with continuePendingWork: true and registers no tools", async () => {
    const first = await server.copilotClient();
    const started = gate();
    const original = await first.createSession({
      tools: [valueTool("resume_external_tool", neverAnswering(started))],
      onPermissionRequest: approveAll,
    });
    const firstSaw = recordEvents(original);
    const from = fixture.model.requests.length;
    fixture.model.enqueue(
      callingTools(["call_external", "resume_external_tool", { value: "beta" }]),
      { text: "The result is EXTERNAL_RESUMED_BETA." },
    );
    await original.send({
      prompt: "Use resume_external_tool with value 'beta', then reply with the result.",
    });
    await started.opened;
    const kept = keptForResume(original.sessionId);
    await first.forceStop();
    await kept;

    const second = await server.copilotClient();
    const resumed = await second.resumeSession(original.sessionId, {
      continuePendingWork: true,
      onPermissionRequest: approveAll,
    });
    const secondSaw = recordEvents(resumed);
    const idle = nextEvent(resumed, (event) => event.type === "session.idle");
    const requested = firstSaw.find((event) => event.type === "external_tool.requested");
    const answer = await resumed.rpc.tools.handlePendingToolCall({
      requestId: requested?.data.requestId ?? "",
      result: "EXTERNAL_RESUMED_BETA",
    });
    expect(answer.success).toBe(true);
    await idle;

    expect(outline(firstSaw)).toEqual([
      ...UNTIL_ASKED,
      ["tool.execution_start", "call_external"],
      ["permission.requested"],
      ["permission.completed", "approved"],
      ["tool.execution_running"],
      ["external_tool.requested", "call_external"],
    ]);
    expect(outline(secondSaw)).toEqual([
      ["external_tool.completed", "call_external", "completed"],
      ["tool.execution_complete", "call_external", true],
      ...FINAL_TURN("The result is EXTERNAL_RESUMED_BETA."),
    ]);
    expect(sent(from + 1)).toEqual([
      ["user", "Use resume_external_tool with value 'beta', then reply with the result."],
      ["assistant", null],
      ["tool", "call_external", "EXTERNAL_RESUMED_BETA"],
    ]);
    await resumed.disconnect();
  });
});
