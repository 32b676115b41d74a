import {
  approveAll,
  CopilotClient,
  type CopilotSession,
  defineTool,
  RuntimeConnection,
  type SessionEvent,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { recordEvents, useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, `session.suspend` (the Copilot SDK's `suspend.e2e.test.ts`): the running work ends at
 * a safe point, nothing pending runs afterwards, the log is committed and the conversation goes on
 * after a resume. Driven through the official `@github/copilot-sdk` over the built CLI.
 */

const setup = useCopilotClient();

/** `[type, toolCallId?, success?]` of the tool and prompt-end events the app saw. */
function outline(events: readonly SessionEvent[]): unknown[] {
  return events.flatMap((event) => {
    switch (event.type) {
      case "tool.execution_start":
        return [[event.type, event.data.toolCallId]];
      case "tool.execution_complete":
        return [[event.type, event.data.toolCallId, event.data.success]];
      case "abort":
      case "session.idle":
        return [[event.type]];
      default:
        return [];
    }
  });
}

/**
 * Has the model call `tool` (call `id`) with `{ value }`, and sends the prompt that asks for it,
 * worded as the Copilot SDK's suspend tests word it; answers once the send is accepted.
 */
async function sendCalling(
  session: CopilotSession,
  id: string,
  tool: string,
  value: string,
): Promise<void> {
  setup.fixture.model.enqueue(callingTools([id, tool, { value }]));
  await session.send({ prompt: `Use the tool with value '${value}'.` });
}

describe("session.suspend", () => {
  test("an idle session suspends; a resume in another client goes on with the conversation", async () => {
    const { client, fixture } = setup;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "SUSPEND_TURN_ONE" });
    await session.sendAndWait({ prompt: "Remember the magic word: SUSPENSE." });
    await session.rpc.suspend();
    await session.disconnect();

    const resumed = await client.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
      continuePendingWork: true,
    });
    fixture.model.enqueue({ text: "SUSPENSE" });
    const reply = await resumed.sendAndWait({ prompt: "What was the magic word?" });
    expect(reply?.data.content).toBe("SUSPENSE");
    const sent = chatBody(fixture.model.requests.at(-1)).messages.filter(
      (message) => message.role !== "system",
    );
    expect(sent.map((message) => [message.role, message.content])).toEqual([
      ["user", "Remember the magic word: SUSPENSE."],
      ["assistant", "SUSPEND_TURN_ONE"],
      ["user", "What was the magic word?"],
    ]);
    await resumed.disconnect();
  });

  test("suspend cancels a pending permission request: the tool never runs", async () => {
    const { fixture } = setup;
    // Without --yolo, so that the app's tool is asked about.
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env }),
      workingDirectory: fixture.cwd,
    });
    await client.start();
    const asked = gate();
    let invoked = false;
    const session = await client.createSession({
      tools: [
        defineTool("suspend_cancel_permission_tool", {
          description: "Transforms a value",
          parameters: { type: "object", properties: { value: { type: "string" } } },
          handler: () => {
            invoked = true;
            return "SHOULD_NOT_RUN";
          },
        }),
      ],
      // Never answered: the suspend has to settle the question.
      onPermissionRequest: () => {
        asked.open();
        return new Promise(() => undefined);
      },
    });
    const events = recordEvents(session);
    await sendCalling(session, "call_p", "suspend_cancel_permission_tool", "omega");
    await asked.opened;
    await session.rpc.suspend();
    expect(invoked).toBe(false);
    expect(outline(events)).toEqual([
      ["tool.execution_start", "call_p"],
      ["tool.execution_complete", "call_p", false],
      ["abort"],
      ["session.idle"],
    ]);
    // The session stays usable.
    fixture.model.enqueue({ text: "still here" });
    const reply = await session.sendAndWait({ prompt: "are you there?" });
    expect(reply?.data.content).toBe("still here");
    await session.disconnect();
    await client.stop();
  });

  test("suspend ends a call waiting for the app's tool with an interrupted result", async () => {
    const { client } = setup;
    const started = gate();
    const release = gate();
    const session = await client.createSession({
      tools: [
        defineTool("suspend_reject_external_tool", {
          description: "Looks up a value externally",
          parameters: { type: "object", properties: { value: { type: "string" } } },
          handler: async () => {
            started.open();
            await release.opened;
            return "RELEASED_AFTER_SUSPEND";
          },
        }),
      ],
      onPermissionRequest: approveAll,
    });
    const events = recordEvents(session);
    await sendCalling(session, "call_x", "suspend_reject_external_tool", "sigma");
    await started.opened;
    await session.rpc.suspend();
    release.open();
    expect(outline(events)).toEqual([
      ["tool.execution_start", "call_x"],
      ["tool.execution_complete", "call_x", false],
      ["abort"],
      ["session.idle"],
    ]);
    const messages = await session.getEvents();
    const completed = messages.find((event) => event.type === "tool.execution_complete");
    expect(completed?.type === "tool.execution_complete" && completed.data.success).toBe(false);
    await session.disconnect();
  });
});
