import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SessionEvent } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, recordEvents, startCopilotClient } from "./support.js";

// Round 3, session 29's review: an app whose `onPermissionRequest` never settles kept the turn
// open. The Copilot wire defines no timeout for a permission answer (sendAndWait's 60 s does not
// abort the loop), so turnloop adds none; but the app's `session.abort()` ends the turn (the
// question answered cancelled, the call interrupted, `abort`, `session.idle`), the session takes
// the next prompt, and `client.stop()` returns.

const fixture = fixtureForFile();

/** `[type, detail]` of the events an app acts on, in order. */
function outline(events: readonly SessionEvent[]): unknown[] {
  return events.flatMap((event) => {
    switch (event.type) {
      case "user.message":
        return [[event.type, event.data.content]];
      case "permission.requested":
        return [[event.type, event.data.permissionRequest.kind]];
      case "permission.completed":
        return [[event.type, event.data.result.kind]];
      case "tool.execution_start":
        return [[event.type, event.data.toolCallId]];
      case "tool.execution_complete":
        return [[event.type, event.data.toolCallId, event.data.success, event.data.error?.code]];
      case "assistant.message":
        return [[event.type, event.data.content]];
      case "abort":
      case "session.idle":
        return [[event.type]];
      default:
        return [];
    }
  });
}

test("a handler that never answers: abort ends the turn, the next prompt runs, stop returns", async () => {
  // Without --yolo: the command is asked about.
  const client = await startCopilotClient(fixture, []);
  const asked = gate();
  const session = await client.createSession({
    onPermissionRequest: () => {
      asked.open();
      return new Promise(() => undefined);
    },
  });
  const events = recordEvents(session);
  fixture.model.enqueue(callingTools(["call_touch", "bash", { command: "touch made.txt" }]));
  await session.send({ prompt: "make the file" });
  await asked.opened;
  await session.abort();
  const idle = events.findIndex((event) => event.type === "session.idle");
  expect(outline(events.slice(0, idle + 1))).toEqual([
    ["user.message", "make the file"],
    ["assistant.message", ""],
    ["tool.execution_start", "call_touch"],
    ["permission.requested", "shell"],
    ["permission.completed", "cancelled"],
    ["tool.execution_complete", "call_touch", false, "interrupted"],
    ["abort"],
    ["session.idle"],
  ]);
  expect(existsSync(join(fixture.cwd, "made.txt"))).toBe(false);

  fixture.model.enqueue({ text: "still here" });
  const reply = await session.sendAndWait({ prompt: "are you there?" });
  expect(reply?.data.content).toBe("still here");
  expect(fixture.model.requests).toHaveLength(2);
  // The test's own time-out is what a hang would meet.
  await client.stop();
});

test("turnloop's SDK: abort ends the turn; stop while the question is pending returns, and the log ends the call", async () => {
  const client = await fixture.startedClient();
  let asked = gate();
  const session = await client.createSession({
    onPermissionRequest: () => {
      asked.open();
      return new Promise(() => undefined);
    },
  });
  const from = fixture.model.requests.length;
  fixture.model.enqueue(callingTools(["call_one", "bash", { command: "touch one.txt" }]));
  const first = session.sendAndWait({ prompt: "make one" });
  await asked.opened;
  await session.abort();
  await first;
  asked = gate();
  fixture.model.enqueue(callingTools(["call_two", "bash", { command: "touch two.txt" }]));
  await session.send({ prompt: "make two" });
  await asked.opened;
  // The test's own time-out is what a hang would meet.
  await client.stop();
  expect(fixture.model.requests.length - from).toBe(2);
  expect(existsSync(join(fixture.cwd, "one.txt")) || existsSync(join(fixture.cwd, "two.txt"))).toBe(
    false,
  );
  const reader = await fixture.startedClient();
  const resumed = await reader.resumeSession(session.sessionId);
  const stored = (await resumed.getMessages()).flatMap((event): unknown[][] => {
    switch (event.type) {
      case "user.message":
        return [[event.type, event.data.content]];
      case "permission.completed":
        return [[event.type, (event.data as { decision?: string }).decision]];
      case "tool.execution_complete":
        return [[event.type, event.data.toolCallId, event.data.success]];
      case "assistant.turn_end":
      case "abort":
        return [[event.type]];
      default:
        return [];
    }
  });
  const ended = (prompt: string, id: string) => [
    ["user.message", prompt],
    ["permission.completed", "cancelled"],
    ["tool.execution_complete", id, false],
    ["assistant.turn_end"],
    ["abort"],
  ];
  expect(stored).toEqual([...ended("make one", "call_one"), ...ended("make two", "call_two")]);
});
