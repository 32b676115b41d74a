import { expect, test } from "vitest";
import type { EventInput, SessionEvent, ToolRequest } from "../../src/events/events.js";
import { OpenWork } from "../../src/session/open-work.js";

// Session 28: a log whose process ended at a permission question was repaired with "Not run: the
// prompt was cancelled …", and a started call with "the tool call was cancelled …": nobody had
// cancelled anything. The repair (src/session/open-work.ts) says what happened to each call, by
// where the log shows it stood: started, at its question, refused there, cancelled there, or not
// reached.

let sequence = 0;
function event(input: EventInput): SessionEvent {
  sequence += 1;
  const envelope = { id: `e${sequence}`, timestamp: "2026-12-05T00:00:00.000Z", parentId: null };
  return { ...input, ...envelope } as SessionEvent;
}

const question = (toolCallId: string): EventInput => ({
  type: "permission.requested",
  data: { requestId: `r_${toolCallId}`, toolCallId, toolName: "bash", kind: "execute", title: "x" },
});
const answer = (toolCallId: string, decision: "allowed" | "denied" | "cancelled"): EventInput => ({
  type: "permission.completed",
  data: { requestId: `r_${toolCallId}`, toolCallId, decision, scope: "once" },
});
const start = (toolCallId: string): EventInput => ({
  type: "tool.execution_start",
  data: { toolCallId, toolName: "bash", arguments: {} },
});

test("each call a process left without a result is told what happened to it", () => {
  const work = new OpenWork();
  const log: EventInput[] = [
    start("call_ran"),
    start("call_allowed"),
    question("call_allowed"),
    answer("call_allowed", "allowed"),
    start("call_asked"),
    question("call_asked"),
    start("call_refused"),
    question("call_refused"),
    answer("call_refused", "denied"),
    start("call_cancelled"),
    question("call_cancelled"),
    answer("call_cancelled", "cancelled"),
  ];
  for (const each of log) {
    work.apply(event(each));
  }
  const names = ["ran", "allowed", "asked", "refused", "cancelled", "never_reached"];
  const pending: ToolRequest[] = names.map((name) => ({
    toolCallId: `call_${name}`,
    name: "bash",
    arguments: {},
  }));
  const said = work
    .closingEvents(pending)
    .map((closing) =>
      closing.type === "tool.execution_complete"
        ? [closing.data.toolCallId, closing.data.result?.content, closing.data.error]
        : [closing.type],
    );
  const mayHaveRun =
    "Interrupted: turnloop stopped before the tool call's result was recorded; it may have run, in part or in full.";
  const expected: Array<[string, string]> = [
    ["call_ran", mayHaveRun],
    ["call_allowed", mayHaveRun],
    ["call_asked", "Not run: turnloop stopped before the permission question was answered."],
    [
      "call_refused",
      "Not run: permission was refused; turnloop stopped before the refusal was recorded.",
    ],
    ["call_cancelled", "Not run: the prompt was cancelled before the tool call started."],
    ["call_never_reached", "Not run: turnloop stopped before the tool call started."],
  ];
  expect(said).toEqual(
    expected.map(([id, content]) => [id, content, { message: content, code: "interrupted" }]),
  );
});
