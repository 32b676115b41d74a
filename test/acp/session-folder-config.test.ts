import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A fresh user's trial (round 3, session 15, #1): `turnloop acp` started in one folder, with
// `session/new {cwd}` naming another, ran the session with the start folder's project file: an
// editor with one agent for several projects lost each project's deny rules. A session now runs
// with its own folder's `.turnloop/config.json` (src/session/host.ts `configOf`).

const fixture = ChildFixture.forEachTest();
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

async function denying(folder: string, rule: string): Promise<void> {
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  await writeFile(
    join(folder, ".turnloop", "config.json"),
    JSON.stringify({ permissions: { deny: [rule] } }),
  );
}

function runs(command: string): void {
  fixture.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
}

/** The `status` of the tool call updates of `sessionId` that carry one, in order. */
function statuses(updates: readonly acp.SessionUpdate[]): string[] {
  return updates.flatMap((update) =>
    update.sessionUpdate === "tool_call_update" && typeof update.status === "string"
      ? [update.status]
      : [],
  );
}

test("session/new in another folder runs with that folder's deny rules, not the start folder's", async () => {
  await denying(fixture.cwd, "bash(echo *)");
  const project = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  folders.push(project);
  await denying(project, "bash(touch *)");
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: project,
    mcpServers: [],
  });
  runs("touch denied.txt");
  expect(await agent.prompt(sessionId, "touch it")).toEqual({ stopReason: "end_turn" });
  expect(existsSync(join(project, "denied.txt"))).toBe(false);
  expect(statuses(agent.updates(sessionId))).toEqual(["failed"]);
  runs("echo hi > said.txt");
  expect(await agent.prompt(sessionId, "say it")).toEqual({ stopReason: "end_turn" });
  expect(existsSync(join(project, "said.txt"))).toBe(true);
  // The touch was denied by the rule without a question; the echo was asked about and allowed.
  const answers = (await fixture.persisted(sessionId)).flatMap((event) =>
    event.type === "permission.completed" ? [event.data.decision] : [],
  );
  expect(answers).toEqual(["allowed"]);
  expect(await agent.end()).toBe(0);
});

// Round 3, session 20 (#3): a session in a subfolder of a repository runs with the repository's
// project file (the nearest folder up holding `.git`: src/session/config-paths.ts).
test("session/new in a subfolder of a repository runs with the repository's deny rules", async () => {
  const project = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  folders.push(project);
  await mkdir(join(project, ".git"));
  await denying(project, "bash(touch *)");
  const folder = join(project, "src", "lib");
  await mkdir(folder, { recursive: true });
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: folder,
    mcpServers: [],
  });
  runs("touch denied.txt");
  expect(await agent.prompt(sessionId, "touch it")).toEqual({ stopReason: "end_turn" });
  expect(existsSync(join(folder, "denied.txt"))).toBe(false);
  expect(statuses(agent.updates(sessionId))).toEqual(["failed"]);
  const answers = (await fixture.persisted(sessionId)).flatMap((event) =>
    event.type === "permission.completed" ? [event.data.decision] : [],
  );
  expect(answers).toEqual([]);
  expect(await agent.end()).toBe(0);
});
