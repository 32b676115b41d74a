import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { removeTree } from "../support/remove-tree.js";
import { callingTools } from "../support/replies.js";
import { fixtureForEachTest } from "./support.js";

// A fresh user's trial (round 3, session 15, #1): the server ran a session created or resumed
// for another folder than its own with the project file of the folder it was started in, and
// `resumeSession(id, { workingDirectory })` naming another folder than the session's was taken
// without a word (the commands still ran in the session's folder). A session now runs with its
// own folder's `.turnloop/config.json` (src/session/host.ts `configOf`), and a resume naming
// another folder is refused, as ACP `session/load` refuses it.

const fixture = fixtureForEachTest();

async function denying(folder: string, rule: string): Promise<void> {
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  await writeFile(
    join(folder, ".turnloop", "config.json"),
    JSON.stringify({ permissions: { deny: [rule] } }),
  );
}

test("createSession in another folder runs with that folder's deny rules; a resume naming another folder is refused", async () => {
  await denying(fixture.cwd, "bash(echo *)");
  const project = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  fixture.onClose(() => removeTree(project));
  await denying(project, "bash(touch *)");
  const client = await fixture.startedClient();
  const session = await client.createSession({ workingDirectory: project, allowAllTools: true });
  fixture.model.enqueue(callingTools(["call_1", "bash", { command: "touch denied.txt" }]), {
    text: "Done.",
  });
  await session.sendAndWait({ prompt: "touch it" });
  expect(existsSync(join(project, "denied.txt"))).toBe(false);
  fixture.model.enqueue(callingTools(["call_2", "bash", { command: "echo hi > said.txt" }]), {
    text: "Done.",
  });
  await session.sendAndWait({ prompt: "say it" });
  expect(existsSync(join(project, "said.txt"))).toBe(true);
  await session.disconnect();

  await expect(
    client.resumeSession(session.sessionId, { workingDirectory: fixture.cwd }),
  ).rejects.toThrow(
    `session.resume: workingDirectory ${fixture.cwd}: session ${session.sessionId} works in ${project}; resume it with that workingDirectory (or none), or create a new session in ${fixture.cwd}`,
  );
  // Without one (the client's cwd is not sent) or with its own, it resumes, with its rules.
  const resumed = await client.resumeSession(session.sessionId, { allowAllTools: true });
  fixture.model.enqueue(callingTools(["call_3", "bash", { command: "touch again.txt" }]), {
    text: "Done.",
  });
  await resumed.sendAndWait({ prompt: "touch again" });
  expect(existsSync(join(project, "again.txt"))).toBe(false);
  await resumed.disconnect();
  const same = await client.resumeSession(session.sessionId, { workingDirectory: project });
  await same.disconnect();
});

// A fresh user's trial (round 3, session 16, #18): a session whose folder is gone was resumed
// without a word, and every tool then failed in it.
test("resumeSession of a session whose folder is gone is refused, naming the folder", async () => {
  const project = await mkdtemp(join(tmpdir(), "turnloop-gone-"));
  fixture.onClose(() => removeTree(project));
  const client = await fixture.startedClient();
  const session = await client.createSession({ workingDirectory: project });
  fixture.model.enqueue({ text: "first" });
  await session.sendAndWait({ prompt: "hi" });
  await session.disconnect();
  await rm(project, { recursive: true });
  await expect(client.resumeSession(session.sessionId)).rejects.toThrow(
    `session.resume: session ${session.sessionId} works in ${project}, which is not an existing directory here; create or restore it to resume the session`,
  );
  // With another workingDirectory (session-18 brief #6): the gone folder is named, not advised.
  await expect(
    client.resumeSession(session.sessionId, { workingDirectory: fixture.cwd }),
  ).rejects.toThrow(
    `session.resume: workingDirectory ${fixture.cwd}: session ${session.sessionId} works in ${project}, which is not an existing directory here; create or restore it, then resume it with that workingDirectory (or none); or create a new session in ${fixture.cwd}`,
  );
  expect(fixture.model.requests).toHaveLength(1);
});

// A fresh user's trial (round 3, session 16, #13): the `session.resume` event an app reads had no
// `selectedModel` or `context`, which Copilot's schema has (reference §2, row 2).
test("session.resume events name the model the session was resumed with and its folder", async () => {
  const project = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  fixture.onClose(() => removeTree(project));
  const client = await fixture.startedClient();
  const session = await client.createSession({ workingDirectory: project });
  fixture.model.enqueue({ text: "first" });
  await session.sendAndWait({ prompt: "hi" });
  await session.disconnect();
  const kept = await client.resumeSession(session.sessionId);
  await kept.disconnect();
  const switched = await client.resumeSession(session.sessionId, { model: "alt-model" });
  const resumes = (await switched.getMessages()).filter((event) => event.type === "session.resume");
  expect(resumes.map((event) => event.data)).toEqual([
    expect.objectContaining({ selectedModel: "fake-model", context: { cwd: project } }),
    expect.objectContaining({ selectedModel: "alt-model", context: { cwd: project } }),
  ]);
  await switched.disconnect();
});

// A trial of session 17's build (round 3, session 18, #1): a server started in a folder whose
// `.turnloop/config.json` is invalid exited 64, so no app could create a session anywhere; one
// started in a good folder refused a resume in a folder with an invalid file as "no session can
// be resumed". Config is per folder (host.ts `runIn`): that folder's sessions are refused naming
// the file and key, the others work.
test("a server started in a folder with an invalid config serves other folders; that folder's sessions are refused naming the file", async () => {
  const invalid = async (folder: string): Promise<string> => {
    await mkdir(join(folder, ".turnloop"), { recursive: true });
    const file = join(folder, ".turnloop", "config.json");
    await writeFile(file, '{"maxTurns": "many"}\n');
    return `the session's folder ${folder}: ${file}: maxTurns: must be a number, not the string "many"`;
  };
  const here = await invalid(fixture.cwd);
  const project = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  fixture.onClose(() => removeTree(project));
  const client = await fixture.startedClient();
  const session = await client.createSession({ workingDirectory: project });
  fixture.model.enqueue({ text: "Hello from elsewhere." });
  const answer = await session.sendAndWait({ prompt: "hi" });
  expect(answer?.data.content).toBe("Hello from elsewhere.");
  await session.disconnect();
  await expect(client.createSession({ workingDirectory: fixture.cwd })).rejects.toThrow(
    `session.create: ${here}`,
  );
  const there = await invalid(project);
  await expect(client.resumeSession(session.sessionId)).rejects.toThrow(`session.resume: ${there}`);
  // The server is still up for a session in a good folder.
  await rm(join(project, ".turnloop"), { recursive: true });
  const resumed = await client.resumeSession(session.sessionId);
  await resumed.disconnect();
  expect(fixture.model.requests).toHaveLength(1);
});
