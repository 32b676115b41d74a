import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { fixtureForEachTest } from "./support.js";

// Trial of round 3, session 23: `new TurnloopClient({ cliArgs: ["--cwd", dir] })` then
// `createSession({})` ran the session in the app's folder, as the client sent its own folder as
// every session's `workingDirectory`. `--cwd` is the default of the server's sessions, as on
// every face; a session's own `workingDirectory` wins.

const fixture = fixtureForEachTest();

test("--cwd in cliArgs is where sessions without a workingDirectory work; a workingDirectory wins", async () => {
  const project = await realpath(await mkdtemp(join(tmpdir(), "turnloop-cli-cwd-")));
  fixture.onClose(() => rm(project, { recursive: true, force: true }));
  const client = await fixture.startedClient({ cliArgs: ["--cwd", project] });
  const session = await client.createSession({});
  const start = (await session.getMessages()).find((event) => event.type === "session.start");
  expect(start?.type === "session.start" ? start.data.cwd : undefined).toBe(project);

  const own = await client.createSession({ workingDirectory: fixture.cwd });
  const ownStart = (await own.getMessages()).find((event) => event.type === "session.start");
  expect(ownStart?.type === "session.start" ? ownStart.data.cwd : undefined).toBe(fixture.cwd);
});
