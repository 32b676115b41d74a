import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { TurnloopClient } from "../../src/sdk/index.js";
import { removeTree } from "../support/remove-tree.js";
import { fixtureForEachTest } from "./support.js";
import { startTcpServer } from "./tcp-server.js";

// Trial of round 3, session 23: `new TurnloopClient({ cliArgs: ["--cwd", dir] })` then
// `createSession({})` ran the session in the app's folder, as the client sent its own folder as
// every session's `workingDirectory`. `--cwd` is the default of the server's sessions, as on
// every face; a session's own `workingDirectory` wins.

const fixture = fixtureForEachTest();

test("--cwd in cliArgs is where sessions without a workingDirectory work; a workingDirectory wins", async () => {
  const project = await realpath(await mkdtemp(join(tmpdir(), "turnloop-cli-cwd-")));
  fixture.onClose(() => removeTree(project));
  const client = await fixture.startedClient({ cliArgs: ["--cwd", project] });
  const session = await client.createSession({});
  const start = (await session.getMessages()).find((event) => event.type === "session.start");
  expect(start?.type === "session.start" ? start.data.cwd : undefined).toBe(project);

  const own = await client.createSession({ workingDirectory: fixture.cwd });
  const ownStart = (await own.getMessages()).find((event) => event.type === "session.start");
  expect(ownStart?.type === "session.start" ? ownStart.data.cwd : undefined).toBe(fixture.cwd);
});

// Trial of round 3, session 29: a client reaching a server by `port` sent its own folder (the
// app's `process.cwd()`) as every new session's `workingDirectory`, so the session's commands ran
// where the app was started, not in the server's `--cwd`. The Copilot SDK sends no
// `workingDirectory` the app did not give; the server's `--cwd` rules then.
test("with port, sessions without a workingDirectory work in the server's --cwd, not the app's folder", async () => {
  const project = await realpath(await mkdtemp(join(tmpdir(), "turnloop-port-cwd-")));
  fixture.onClose(() => removeTree(project));
  const server = await startTcpServer(fixture, {}, ["--cwd", project]);
  fixture.onClose(() => server.stop());
  // The app runs in another folder: this test process's, the repository.
  expect(process.cwd()).not.toBe(project);
  const client = new TurnloopClient({ port: server.port });
  fixture.onClose(() => client.stop());
  const session = await client.createSession({});
  const start = (await session.getMessages()).find((event) => event.type === "session.start");
  expect(start?.type === "session.start" ? start.data.cwd : undefined).toBe(project);

  const own = await client.createSession({ workingDirectory: fixture.cwd });
  const ownStart = (await own.getMessages()).find((event) => event.type === "session.start");
  expect(ownStart?.type === "session.start" ? ownStart.data.cwd : undefined).toBe(fixture.cwd);
});
