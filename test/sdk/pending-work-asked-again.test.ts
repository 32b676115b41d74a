import { describe, expect, test } from "vitest";
import {
  defineTool,
  type PermissionRequest,
  TurnloopClient,
  type WireEvent,
} from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { usePendingWorkServer } from "./pending-work-support.js";
import { nextEvent, recordEvents } from "./support.js";

/**
 * Round 3 session 21's trial, item 1: an app that resumes with `continuePendingWork: true` a
 * session whose last app went away while a question waited is asked that question again (the
 * Copilot SDK's `ResumeSessionConfig.continuePendingWork`: "the runtime re-emits
 * `permission.requested` so the registered `onPermissionRequest` handler can re-prompt"), and
 * its `session.resume` says a prompt was active. The app that left is an official Copilot SDK
 * client (`forceStop`, as a killed app); the one that resumes is turnloop's own SDK.
 */
const setup = usePendingWorkServer();

/** `[type, key data]` of what turnloop's SDK app saw, the output a command streams left out. */
function outline(events: readonly WireEvent[]): unknown[] {
  const shown = events.filter((event) => event.type !== "tool.execution_partial_result");
  return shown.map((event) => {
    switch (event.type) {
      case "permission.requested":
      case "external_tool.requested":
        return [event.type, event.data.toolCallId];
      case "tool.execution_complete":
        return [event.type, event.data.toolCallId, event.data.success];
      case "assistant.message":
        return [event.type, event.data.content];
      default:
        return [event.type];
    }
  });
}

async function resumeWithTurnloop(
  sessionId: string,
  config: Parameters<TurnloopClient["resumeSession"]>[1],
) {
  const client = new TurnloopClient({ port: setup.server.port, cwd: setup.fixture.cwd });
  setup.fixture.onClose(() => client.stop());
  const session = await client.resumeSession(sessionId, { continuePendingWork: true, ...config });
  return {
    session,
    saw: recordEvents<WireEvent>(session),
    idle: nextEvent(session, (event) => event.type === "session.idle"),
  };
}

describe("a resume with continuePendingWork: true asks the open questions again", () => {
  test("a permission question left open goes to the resuming app's onPermissionRequest, and the prompt goes on", async () => {
    const asked = gate();
    const waiting = await setup.startWaiting(
      {
        onPermissionRequest: () => {
          asked.open();
          return new Promise(() => undefined);
        },
      },
      "Run echo pending-one",
      [
        callingTools(["call_pending", "bash", { command: "echo pending-one" }]),
        { text: "It printed pending-one." },
      ],
      asked.opened,
    );
    const question = waiting.saw.find((event) => event.type === "permission.requested");
    await setup.leave(waiting.client, waiting.session.sessionId);

    const requests: PermissionRequest[] = [];
    const resume = await resumeWithTurnloop(waiting.session.sessionId, {
      onPermissionRequest: (request) => {
        requests.push(request);
        return { kind: "approve-once" };
      },
    });
    await resume.idle;

    expect(
      requests.map((request) => [request.requestId, request.kind, request.fullCommandText]),
    ).toEqual([[question?.data.requestId, "shell", "echo pending-one"]]);
    expect(outline(resume.saw)).toEqual([
      ["permission.requested", "call_pending"],
      ["permission.completed"],
      ["tool.execution_complete", "call_pending", true],
      ["assistant.turn_end"],
      ["assistant.turn_start"],
      ["session.usage_info"],
      ["assistant.usage"],
      ["assistant.message", "It printed pending-one."],
      ["assistant.turn_end"],
      ["assistant.idle"],
      ["session.idle"],
    ]);
    expect(setup.sent(waiting.from + 1).at(-1)).toEqual([
      "tool",
      "call_pending",
      "pending-one\n<exited with exit code 0>",
    ]);
    const events = await resume.session.getMessages();
    expect(
      events
        .filter((event) => event.type === "session.resume")
        .map((event) => event.data.sessionWasActive),
    ).toEqual([true]);
    await resume.session.disconnect();
  });

  test("a call of the app's tool left waiting goes to the resuming app's handler of that tool", async () => {
    const started = gate();
    const waiting = await setup.startWaiting(
      {
        tools: [
          {
            name: "lookup",
            description: "Looks up a value",
            parameters: { type: "object", properties: { value: { type: "string" } } },
            skipPermission: true,
            handler: () => {
              started.open();
              return new Promise(() => undefined);
            },
          },
        ],
      },
      "Look up alpha",
      [callingTools(["call_lookup", "lookup", { value: "alpha" }]), { text: "Found ALPHA_FOUND." }],
      started.opened,
    );
    await setup.leave(waiting.client, waiting.session.sessionId);

    const values: unknown[] = [];
    const lookup = defineTool("lookup", {
      description: "Looks up a value",
      parameters: { type: "object", properties: { value: { type: "string" } } },
      skipPermission: true,
      handler: (input) => {
        values.push(input);
        return "ALPHA_FOUND";
      },
    });
    const resume = await resumeWithTurnloop(waiting.session.sessionId, { tools: [lookup] });
    await resume.idle;

    expect(values).toEqual([{ value: "alpha" }]);
    expect(outline(resume.saw).slice(0, 3)).toEqual([
      ["external_tool.requested", "call_lookup"],
      ["external_tool.completed"],
      ["tool.execution_complete", "call_lookup", true],
    ]);
    expect(setup.sent(waiting.from + 1).at(-1)).toEqual(["tool", "call_lookup", "ALPHA_FOUND"]);
    await resume.session.disconnect();
  });
});
