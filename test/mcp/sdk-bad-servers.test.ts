import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForFile, startCopilotClient } from "../sdk/support.js";
import { stdioEntry } from "../support/mcp/servers.js";

// The trial of round 3, session 22: an app's `mcpServers` entry that the server cannot start was
// said only on the server's stderr, which an app does not read. The app now receives a
// `session.warning` (`warningType` `mcp_server_not_started`) naming the entry and why, when it
// creates or resumes the session; the good entries start.

const fixture = fixtureForFile();

const warnings = (events: readonly SessionEvent[]) =>
  events.flatMap((event) => (event.type === "session.warning" ? [event.data] : []));

const BAD = {
  warningType: "mcp_server_not_started",
  message:
    'MCP server not started: session mcpServers: server "bad": needs "command" (stdio) or "url" (http, sse)',
};
const NOT_A_URL = {
  warningType: "mcp_server_not_started",
  message:
    'MCP server not started: session mcpServers: server "web": "url" is not an http:// or https:// URL: "notaurl"',
};

test("an app's mcpServers entry that cannot start is a session.warning the app receives, on create and resume", async () => {
  const client = await startCopilotClient(fixture, []);
  const created: SessionEvent[] = [];
  const session = await client.createSession({
    onPermissionRequest: approveAll,
    onEvent: (event) => created.push(event),
    mcpServers: {
      bad: { type: "local", args: [], tools: ["*"] },
      ok: { ...stdioEntry(), tools: ["*"] },
    } as never,
  });
  expect(warnings(created)).toEqual([BAD]);
  fixture.model.enqueue({ text: "Hi." });
  await session.sendAndWait({ prompt: "hi" });
  const body = fixture.model.requests.at(-1)?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  expect(body.tools?.map((tool) => tool.function.name)).toContain("ok-echo");
  await session.disconnect();

  const resumedEvents: SessionEvent[] = [];
  const resumed = await client.resumeSession(session.sessionId, {
    onPermissionRequest: approveAll,
    onEvent: (event) => resumedEvents.push(event),
    mcpServers: { web: { type: "http", url: "notaurl", tools: ["*"] } } as never,
  });
  fixture.model.enqueue({ text: "Again." });
  await resumed.sendAndWait({ prompt: "again" });
  expect(warnings(resumedEvents)).toEqual([NOT_A_URL]);
  // Kept in the log, as every warning is.
  expect(warnings(await resumed.getEvents())).toEqual([BAD, NOT_A_URL]);
});
