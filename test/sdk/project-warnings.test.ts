import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { expect, onTestFinished, test } from "vitest";
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
      "and this key loosens permissions, sends data elsewhere or changes what a run may spend; run " +
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

// Session 35's trial of hostile repositories: with turnloop's own SDK, an app that subscribes
// right after `createSession` (README's code) never saw the trust warnings: the server sends them
// with `session.start`, before the answer, and the SDK dropped events of a session it did not
// know yet. As the Copilot SDK, it now names the session before asking for it and takes an
// `onEvent` handler then; the warnings no handler took while the session opened are given to the
// handlers the app adds right after, once. The server's stderr says another folder's held keys once.
test("turnloop's SDK gives the opening's warnings to handlers added right after createSession, once", async () => {
  const other = await mkdtemp(join(tmpdir(), "turnloop-sdk-other-project-"));
  onTestFinished(() => rm(other, { recursive: true, force: true }));
  const config = join(other, ".turnloop", "config.json");
  await mkdir(join(other, ".turnloop"));
  await writeFile(config, JSON.stringify({ permissions: { mode: "full-access" } }));
  const held = {
    warningType: "project_not_trusted",
    message:
      `${config}: not applying permissions.mode: this project is not trusted, ` +
      "and this key loosens permissions, sends data elsewhere or changes what a run may spend; run " +
      "`turnloop mcp trust` in it to trust the whole project config",
  };
  let stderr = "";
  const client = await fixture.startedClient({ onStderr: (text) => (stderr += text) });
  const later = await client.createSession({ workingDirectory: other });
  const subscribed: unknown[] = [];
  later.on("session.warning", (event) => subscribed.push(event.data));
  const all: string[] = [];
  later.on((event) => all.push(event.type));
  const early: unknown[] = [];
  const withHandler = await client.createSession({
    workingDirectory: other,
    onEvent: (event) => early.push(event.type === "session.warning" ? event.data : event.type),
  });
  const late: unknown[] = [];
  withHandler.on("session.warning", (event) => late.push(event.data));
  fixture.model.enqueue({ text: "Hi." });
  await later.sendAndWait({ prompt: "hi" });
  expect(subscribed).toEqual([held]);
  // The opening's session.start is onEvent's only, as in the Copilot SDK.
  expect(all.slice(0, 2)).toEqual(["session.warning", "user.message"]);
  expect(early).toEqual(["session.start", held]);
  expect(late).toEqual([]);
  await client.stop();
  const naming = stderr.split("\n").filter((line) => line.includes(config));
  expect(naming).toEqual([`turnloop: warning: ${held.message}`]);
});
