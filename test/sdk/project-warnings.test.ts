import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForFile, startCopilotClient } from "./support.js";

// A fresh user's check: the server said an untrusted project's held config keys only on its
// stderr, which an app does not read. An app of the official SDK now receives each warning as
// a `session.warning` event of the session it creates or resumes (once per open).

const fixture = fixtureForFile();

test("an app sees an untrusted project's held key and waiting MCP servers as session.warning", async () => {
  const config = join(fixture.cwd, ".turnloop", "config.json");
  await mkdir(join(fixture.cwd, ".turnloop"), { recursive: true });
  await writeFile(config, JSON.stringify({ permissions: { mode: "full-access" } }));
  const mcp = join(fixture.cwd, ".mcp.json");
  await writeFile(mcp, JSON.stringify({ mcpServers: { tracker: { command: "/bin/true" } } }));
  const client = await startCopilotClient(fixture, []);
  const created: SessionEvent[] = [];
  const session = await client.createSession({
    onPermissionRequest: approveAll,
    onEvent: (event) => created.push(event),
  });
  const warnings = (events: SessionEvent[]) =>
    events.flatMap((event) => (event.type === "session.warning" ? [event.data] : []));
  const held = {
    warningType: "project_not_trusted",
    message:
      `${config}: not applying permissions.mode: this project is not trusted, ` +
      "and this key loosens permissions or sends data elsewhere; run " +
      "`turnloop mcp trust` in it to trust the whole project config",
  };
  const waiting = {
    warningType: "project_not_trusted",
    message:
      `not starting the MCP servers of ${mcp} (tracker): this project is not trusted; run` +
      " `turnloop mcp trust` in it to allow them",
  };
  expect(warnings(created)).toEqual([held, waiting]);
  fixture.model.enqueue({ text: "Hi." });
  await session.sendAndWait({ prompt: "hi" });
  await session.disconnect();

  const resumedEvents: SessionEvent[] = [];
  const resumed = await client.resumeSession(session.sessionId, {
    onPermissionRequest: approveAll,
    onEvent: (event) => resumedEvents.push(event),
  });
  fixture.model.enqueue({ text: "Again." });
  await resumed.sendAndWait({ prompt: "again" });
  expect(warnings(resumedEvents)).toEqual([held, waiting]);
  expect(warnings(await resumed.getEvents())).toEqual([held, waiting, held, waiting]);
});
