import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { afterAll, beforeAll, expect, test } from "vitest";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * An app deletes a session another app is running a prompt in (trial 40 F6): the other app's
 * `abort` says so, not "its app went away, or the server stopped". Two official
 * `@github/copilot-sdk` clients on one `turnloop --headless --port` process.
 */

const fixture = fixtureForFile();
let server: TcpServer;

beforeAll(async () => {
  server = await startTcpServer(fixture);
});
afterAll(async () => {
  await server.stop();
});

test("the app whose session another app deleted is told that, in the abort's reason", async () => {
  const running = await server.copilotClient();
  const deleting = await server.copilotClient();
  const session = await running.createSession({ onPermissionRequest: approveAll });
  const seen: SessionEvent[] = [];
  session.on((event) => seen.push(event));
  fixture.model.enqueue(
    callingTools(["call_sleep", "bash", { command: "echo started; sleep 30" }]),
  );
  const started = nextEvent(session, (event) => event.type === "tool.execution_partial_result");
  const idle = nextEvent(session, (event) => event.type === "session.idle");
  await session.send({ prompt: "sleep" });
  await started;

  await deleting.deleteSession(session.sessionId);
  await idle;
  expect(seen.filter((event) => event.type === "abort").map((event) => event.data)).toEqual([
    { reason: "cancelled by the session being deleted by another app (session.delete)" },
  ]);
  await running.forceStop();
  await deleting.forceStop();
});

test("the app whose session another app deleted is told so at its next send, with the session id", async () => {
  const kept = await server.copilotClient();
  const deleting = await server.copilotClient();
  const session = await kept.createSession({ onPermissionRequest: approveAll });
  await deleting.deleteSession(session.sessionId);
  await expect(session.send({ prompt: "still there?" })).rejects.toThrow(
    `Session not found: ${session.sessionId} (it was deleted: session.delete)`,
  );
  await kept.forceStop();
  await deleting.forceStop();
});
