import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import {
  answerToolCall,
  EXTERNAL_PROMPT,
  FINAL_TURN,
  neverAnswering,
  outline,
  resumeEvents,
  UNTIL_ASKED,
  usePendingWorkServer,
  valueTool,
} from "./pending-work-support.js";

/**
 * Issue 25, pending-work resume with `continuePendingWork: true` (the Copilot SDK's
 * `pending_work_resume.e2e.test.ts` and its recorded snapshots): an app's tool call or a
 * permission question still waiting when the app's client goes away is kept; a new client resumes
 * with `continuePendingWork: true`, answers it by its request id, and the prompt goes on.
 */
const setup = usePendingWorkServer();

describe("pending work kept for a resume, continuePendingWork: true", () => {
  test("a permission question left open is answered by the client that resumes with continuePendingWork: true", async () => {
    const asked = gate();
    const waiting = await setup.startWaiting(
      {
        tools: [valueTool("resume_permission_tool", (value) => `ORIGINAL_SHOULD_NOT_RUN_${value}`)],
        onPermissionRequest: () => {
          asked.open();
          return new Promise(() => undefined);
        },
      },
      "Use resume_permission_tool with value 'alpha', then reply with the result.",
      [
        callingTools(["call_permission", "resume_permission_tool", { value: "alpha" }]),
        { text: "The result is PERMISSION_RESUMED_ALPHA." },
      ],
      asked.opened,
    );
    const resume = await setup.leaveAndResume(waiting, {
      continuePendingWork: true,
      onPermissionRequest: () => ({ kind: "no-result" }),
      tools: [
        valueTool("resume_permission_tool", (value) => `PERMISSION_RESUMED_${value.toUpperCase()}`),
      ],
    });
    const question = waiting.saw.find((event) => event.type === "permission.requested");
    const pending = await resume.session.rpc.permissions.pendingRequests();
    expect(pending.items).toEqual([
      { requestId: question?.data.requestId, request: question?.data.permissionRequest },
    ]);
    const answer = await resume.session.rpc.permissions.handlePendingPermissionRequest({
      requestId: question?.data.requestId ?? "",
      result: { kind: "approve-once" },
    });
    expect(answer.success).toBe(true);
    await resume.idle;

    expect(outline(waiting.saw)).toEqual([
      ...UNTIL_ASKED,
      ["tool.execution_start", "call_permission"],
      ["permission.requested"],
    ]);
    // Asked again (the SDK's docstring: "re-emits permission.requested"); `no-result` leaves it.
    expect(outline(resume.saw)).toEqual([
      ["permission.requested"],
      ["permission.completed", "approved"],
      ["external_tool.requested", "call_permission"],
      ["external_tool.completed", "call_permission", "completed"],
      ["tool.execution_complete", "call_permission", true],
      ...FINAL_TURN("The result is PERMISSION_RESUMED_ALPHA."),
    ]);
    expect(setup.sent(waiting.from + 1)).toEqual([
      ["user", "Use resume_permission_tool with value 'alpha', then reply with the result."],
      ["assistant", null],
      ["tool", "call_permission", "PERMISSION_RESUMED_ALPHA"],
    ]);
    expect(await resumeEvents(resume.session)).toEqual([
      { continuePendingWork: true, sessionWasActive: true },
    ]);
    expect((await resume.session.rpc.permissions.pendingRequests()).items).toEqual([]);
    await resume.session.disconnect();
  });

  test("a call of the app's tool left waiting is answered by a client that resumes with continuePendingWork: true and registers no tools", async () => {
    const started = gate();
    const waiting = await setup.startWaiting(
      {
        tools: [valueTool("resume_external_tool", neverAnswering(started))],
        onPermissionRequest: approveAll,
      },
      EXTERNAL_PROMPT,
      [
        callingTools(["call_external", "resume_external_tool", { value: "beta" }]),
        { text: "The result is EXTERNAL_RESUMED_BETA." },
      ],
      started.opened,
    );
    const resume = await setup.leaveAndResume(waiting, {
      continuePendingWork: true,
      onPermissionRequest: approveAll,
    });
    expect(await answerToolCall(resume.session, waiting.saw, "EXTERNAL_RESUMED_BETA")).toBe(true);
    await resume.idle;

    expect(outline(waiting.saw)).toEqual([
      ...UNTIL_ASKED,
      ["tool.execution_start", "call_external"],
      ["permission.requested"],
      ["permission.completed", "approved"],
      ["external_tool.requested", "call_external"],
    ]);
    // Sent again; the app has no handler for it and answers by request id.
    expect(outline(resume.saw)).toEqual([
      ["external_tool.requested", "call_external"],
      ["external_tool.completed", "call_external", "completed"],
      ["tool.execution_complete", "call_external", true],
      ...FINAL_TURN("The result is EXTERNAL_RESUMED_BETA."),
    ]);
    expect(setup.sent(waiting.from + 1)).toEqual([
      ["user", EXTERNAL_PROMPT],
      ["assistant", null],
      ["tool", "call_external", "EXTERNAL_RESUMED_BETA"],
    ]);
    await resume.session.disconnect();
  });

  test("parallel calls left waiting are answered one by one after the resume, in any order", async () => {
    const [startedA, startedB] = [gate(), gate()];
    const values: string[] = [];
    const waiting = await setup.startWaiting(
      {
        tools: [
          valueTool("pending_lookup_a", neverAnswering(startedA, values)),
          valueTool("pending_lookup_b", neverAnswering(startedB, values)),
        ],
        onPermissionRequest: approveAll,
      },
      "Call pending_lookup_a with value 'alpha' and pending_lookup_b with value 'beta', then reply with both results.",
      [
        callingTools(
          ["call_a", "pending_lookup_a", { value: "alpha" }],
          ["call_b", "pending_lookup_b", { value: "beta" }],
        ),
        { text: "PARALLEL_A_ALPHA and PARALLEL_B_BETA" },
      ],
      Promise.all([startedA.opened, startedB.opened]),
    );
    expect(values.sort()).toEqual(["alpha", "beta"]);
    const resume = await setup.leaveAndResume(waiting, {
      continuePendingWork: true,
      onPermissionRequest: approveAll,
    });
    const answerB = await answerToolCall(resume.session, waiting.saw, "PARALLEL_B_BETA", "call_b");
    const answerA = await answerToolCall(resume.session, waiting.saw, "PARALLEL_A_ALPHA", "call_a");
    expect([answerA, answerB]).toEqual([true, true]);
    await resume.idle;

    expect(outline(resume.saw)).toEqual([
      ["external_tool.requested", "call_a"],
      ["external_tool.requested", "call_b"],
      ["external_tool.completed", "call_b", "completed"],
      ["tool.execution_complete", "call_b", true],
      ["external_tool.completed", "call_a", "completed"],
      ["tool.execution_complete", "call_a", true],
      ...FINAL_TURN("PARALLEL_A_ALPHA and PARALLEL_B_BETA"),
    ]);
    expect(setup.sent(waiting.from + 1)).toEqual([
      [
        "user",
        "Call pending_lookup_a with value 'alpha' and pending_lookup_b with value 'beta', then reply with both results.",
      ],
      ["assistant", null],
      ["tool", "call_a", "PARALLEL_A_ALPHA"],
      ["tool", "call_b", "PARALLEL_B_BETA"],
    ]);
    await resume.session.disconnect();
  });
});
