import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { ANSWER_TURN, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import {
  answerToolCall,
  EXTERNAL_PROMPT,
  FINAL_TURN,
  neverAnswering,
  outline,
  resumeEvents,
  usePendingWorkServer,
  valueTool,
} from "./pending-work-support.js";
import { nextEvent, recordEvents } from "./support.js";

/**
 * Issue 25, resuming with nothing pending or with `continuePendingWork: false` (the Copilot SDK's
 * `pending_work_resume.e2e.test.ts`): the `session.resume` event reports `continuePendingWork`
 * and `sessionWasActive`; a client joining live work leaves it to be answered, a client resuming
 * work nobody was attached to cancels it.
 */
const setup = usePendingWorkServer();

describe("resuming without pending work to continue", () => {
  test("with nothing pending, a resume with continuePendingWork: true reopens the session, reports it and goes on", async () => {
    const first = await setup.server.copilotClient();
    const original = await first.createSession({ onPermissionRequest: approveAll });
    setup.fixture.model.enqueue({ text: "NO_PENDING_TURN_ONE" });
    await original.sendAndWait({ prompt: "Reply with exactly: NO_PENDING_TURN_ONE" });
    await original.disconnect();
    await first.forceStop();

    const second = await setup.server.copilotClient();
    const resumed = await second.resumeSession(original.sessionId, {
      continuePendingWork: true,
      onPermissionRequest: approveAll,
    });
    expect(await resumeEvents(resumed)).toEqual([
      { continuePendingWork: true, sessionWasActive: false },
    ]);
    const from = setup.fixture.model.requests.length;
    setup.fixture.model.enqueue({ text: "NO_PENDING_TURN_TWO" });
    const reply = await resumed.sendAndWait({ prompt: "Reply with exactly: NO_PENDING_TURN_TWO" });
    expect(reply?.data.content).toBe("NO_PENDING_TURN_TWO");
    expect(setup.sent(from)).toEqual([
      ["user", "Reply with exactly: NO_PENDING_TURN_ONE"],
      ["assistant", "NO_PENDING_TURN_ONE"],
      ["user", "Reply with exactly: NO_PENDING_TURN_TWO"],
    ]);
    await resumed.disconnect();
  });

  test("warm, continuePendingWork: false: a client joining while the first still runs the tool can answer the call; the first's later answer is refused", async () => {
    const started = gate();
    const release = gate();
    let invocations = 0;
    const tool = valueTool("resume_external_tool", async () => {
      invocations += 1;
      started.open();
      await release.opened;
      return "ORIGINAL_SHOULD_NOT_WIN";
    });
    const {
      session: original,
      saw: firstSaw,
      from,
    } = await setup.startWaiting(
      { tools: [tool], onPermissionRequest: approveAll },
      EXTERNAL_PROMPT,
      [
        callingTools(["call_warm", "resume_external_tool", { value: "beta" }]),
        { text: "The result is EXTERNAL_RESUMED_BETA." },
      ],
      started.opened,
    );
    const joinedAt = firstSaw.length;

    const second = await setup.server.copilotClient();
    const joined = await second.resumeSession(original.sessionId, {
      continuePendingWork: false,
      onPermissionRequest: approveAll,
    });
    const secondSaw = recordEvents(joined);
    expect(await resumeEvents(joined)).toEqual([
      { continuePendingWork: false, sessionWasActive: true },
    ]);
    const idle = nextEvent(original, (event) => event.type === "session.idle");
    expect(await answerToolCall(joined, firstSaw, "EXTERNAL_RESUMED_BETA")).toBe(true);
    await idle;
    expect(await answerToolCall(original, firstSaw, "ORIGINAL_SHOULD_NOT_WIN")).toBe(false);
    release.open();

    const afterJoin = [
      ["external_tool.completed", "call_warm", "completed"],
      ["tool.execution_complete", "call_warm", true],
      ...FINAL_TURN("The result is EXTERNAL_RESUMED_BETA."),
    ];
    expect(outline(firstSaw.slice(joinedAt))).toEqual([["session.resume"], ...afterJoin]);
    expect(outline(secondSaw)).toEqual(afterJoin);
    expect(setup.sent(from + 1).at(-1)).toEqual(["tool", "call_warm", "EXTERNAL_RESUMED_BETA"]);
    expect(invocations).toBe(1);
    await joined.disconnect();
    await original.disconnect();
  });

  test("cold, continuePendingWork: false: the call nobody was attached to gets an interrupted result, no model request follows, and the session takes new prompts", async () => {
    const started = gate();
    const {
      client: first,
      session: original,
      saw: firstSaw,
    } = await setup.startWaiting(
      {
        tools: [valueTool("resume_external_tool", neverAnswering(started))],
        onPermissionRequest: approveAll,
      },
      EXTERNAL_PROMPT,
      [callingTools(["call_cold", "resume_external_tool", { value: "beta" }])],
      started.opened,
    );
    await setup.leave(first, original.sessionId);
    const requestsBefore = setup.fixture.model.requests.length;

    const second = await setup.server.copilotClient();
    let resumedHandlerRan = false;
    const resumed = await second.resumeSession(original.sessionId, {
      continuePendingWork: false,
      onPermissionRequest: approveAll,
      tools: [
        valueTool("resume_external_tool", () => {
          resumedHandlerRan = true;
          throw new Error("Resumed-session handler should not be invoked");
        }),
      ],
    });
    // The prompt was waiting for the app's tool when the resume came.
    expect(await resumeEvents(resumed)).toEqual([
      { continuePendingWork: false, sessionWasActive: true },
    ]);
    expect(await answerToolCall(resumed, firstSaw, "EXTERNAL_RESUMED_BETA")).toBe(false);
    expect(setup.fixture.model.requests.length).toBe(requestsBefore);

    setup.fixture.model.enqueue({ text: "COLD_RESUMED_FOLLOWUP" });
    const reply = await resumed.sendAndWait({
      prompt: "Reply with exactly: COLD_RESUMED_FOLLOWUP",
    });
    expect(reply?.data.content).toBe("COLD_RESUMED_FOLLOWUP");
    expect(setup.sent(requestsBefore)).toEqual([
      ["user", EXTERNAL_PROMPT],
      ["assistant", null],
      ["tool", "call_cold", "The execution of this tool, or a previous tool was interrupted."],
      ["user", "Reply with exactly: COLD_RESUMED_FOLLOWUP"],
    ]);
    // The log: the call's interrupted end and the cancel, then the resume that caused them.
    expect((await resumed.getEvents()).map((event) => event.type)).toEqual([
      ...UNTIL_TOOL_START,
      "permission.requested",
      "permission.completed",
      "external_tool.requested",
      "external_tool.completed",
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
      "session.resume",
      "user.message",
      ...ANSWER_TURN,
    ]);
    expect(resumedHandlerRan).toBe(false);
    await resumed.disconnect();
  });
});
