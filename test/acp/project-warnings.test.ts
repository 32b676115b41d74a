import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, onTestFinished, test } from "vitest";
import { trustProject } from "../../src/session/config-paths.js";
import { ChildFixture } from "./child-process.js";
import { chunkTextsAndKinds } from "./update-texts.js";

// A fresh user's check: `turnloop acp` said an untrusted project's held config keys (and its
// MCP servers left waiting) only on stderr, which editors hide. Each is now a `session.warning`
// of the session, told to the editor as a thought with the opening updates, once (or a `notice`, src/acp/notices.ts).

const fixture = ChildFixture.forEachTest();

test("an untrusted project's held key and waiting MCP servers reach the editor once, as thoughts", async () => {
  const config = join(fixture.cwd, ".turnloop", "config.json");
  await mkdir(join(fixture.cwd, ".turnloop"));
  await writeFile(config, JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }));
  const mcp = join(fixture.cwd, ".mcp.json");
  await writeFile(mcp, JSON.stringify({ mcpServers: { tracker: { command: "/bin/true" } } }));
  fixture.server.enqueue({ text: "Hello." });
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const held =
    `${config}: not applying permissions.allow: this project is not trusted, ` +
    "and this key loosens permissions, sends data elsewhere or changes what a run may spend; run " +
    "`turnloop mcp trust` in it to trust the whole project config";
  const waiting =
    `not starting the MCP servers of ${mcp} (tracker): this project is not trusted; run` +
    " `turnloop mcp trust` in it to allow them";
  const messages = chunkTextsAndKinds(
    agent.updates(sessionId),
    (kind) => kind === "available_commands_update",
  );
  expect(messages).toEqual([
    "available_commands_update",
    `⚠ ${held}\n`,
    `⚠ ${waiting}\n`,
    "Hello.",
  ]);
  const warnings = (await fixture.persisted(sessionId)).filter(
    (event) => event.type === "session.warning",
  );
  expect(warnings.map((event) => event.data)).toEqual([
    { warningType: "project_not_trusted", message: held },
    { warningType: "project_not_trusted", message: waiting },
  ]);
  expect(await agent.end()).toBe(0);
});

/** The thoughts (text) and `notice`s of `updates`, in order, as the editor shows them. */
function shown(updates: readonly acp.SessionUpdate[]): string[] {
  return updates.flatMap((update) =>
    update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
      ? [update.content.text]
      : update.sessionUpdate === "notice"
        ? [`${update.severity}: ${update.title} | ${update.description ?? ""}`]
        : [],
  );
}

async function untrustedProject(): Promise<string> {
  const config = join(fixture.cwd, ".turnloop", "config.json");
  await mkdir(join(fixture.cwd, ".turnloop"));
  await writeFile(config, JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }));
  return (
    `${config}: not applying permissions.allow: this project is not trusted, ` +
    "and this key loosens permissions, sends data elsewhere or changes what a run may spend; run " +
    "`turnloop mcp trust` in it to trust the whole project config"
  );
}

// A fresh user's check: a session/load showed the warning twice, the earlier opening's replayed
// with the history and this opening's own; each opening now says it once, before any prompt.
test("session/new and a later session/load each tell the warning once, without a prompt", async () => {
  const held = await untrustedProject();
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  const isWarning = (update: acp.SessionUpdate) => shown([update]).length > 0;
  await agent.waitForUpdate(sessionId, isWarning);
  expect(shown(agent.updates(sessionId))).toEqual([`⚠ ${held}\n`]);
  expect(await agent.end()).toBe(0);

  const again = fixture.startAgent();
  await again.initialize();
  await again.loadSession(sessionId);
  await again.waitForUpdate(sessionId, isWarning);
  expect(again.updates(sessionId).map((update) => update.sessionUpdate)).toEqual([
    "available_commands_update",
    "agent_thought_chunk",
  ]);
  expect(shown(again.updates(sessionId))).toEqual([`⚠ ${held}\n`]);
  expect(await again.end()).toBe(0);
  // The start folder's warning is written to stderr at start, and not again by its sessions.
  expect(again.stderr).toBe(`turnloop: warning: ${held}\n`);
  const warnings = (await fixture.persisted(sessionId)).filter(
    (event) => event.type === "session.warning",
  );
  expect(warnings).toHaveLength(2);
});

test("a client that offers session.notices gets the warning as a notice, not a message", async () => {
  const held = await untrustedProject();
  const agent = fixture.startAgent();
  await agent.initialize({ session: { notices: {} } });
  const sessionId = await agent.newSession();
  await agent.waitForUpdate(sessionId, (update) => update.sessionUpdate === "notice");
  expect(shown(agent.updates(sessionId))).toEqual([
    `warning: This project is not trusted | ${held}`,
  ]);
  expect(await agent.end()).toBe(0);
});

// The last trial: a project file in a folder between a session's folder and its repository's root
// is not read, which `-p` and the terminal say on stderr; an editor was never told.
test("a project file between the session's folder and the repository root reaches the editor as not read", async () => {
  await mkdir(join(fixture.cwd, ".git"));
  const folder = join(fixture.cwd, "src", "cli");
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  const config = join(folder, ".turnloop", "config.json");
  await writeFile(config, JSON.stringify({ permissions: { deny: ["bash"] } }));
  fixture.server.enqueue({ text: "Hello." });
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: folder,
    mcpServers: [],
  });
  expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const notRead = `${config} is not read: the project is ${fixture.cwd} (it holds .git), whose .turnloop/config.json applies in its subfolders`;
  expect(
    (await fixture.persisted(sessionId))
      .filter((event) => event.type === "session.warning")
      .map((event) => event.data),
  ).toEqual([{ warningType: "project_file_not_read", message: notRead }]);
  expect(shown(agent.updates(sessionId))).toContain(`⚠ ${notRead}\n`);
  expect(await agent.end()).toBe(0);
});

// Session 35's trial of hostile repositories: README says `turnloop acp` writes the held keys'
// warning to its stderr (the editor's log of the agent), which it did only for the folder it
// started in; a `session/new` in another project told the editor but not the log. Each folder's
// warning is now written there once per process, however many sessions open in it.
test("a session/new or session/load in another untrusted project writes its warning to stderr once", async () => {
  const other = await mkdtemp(join(tmpdir(), "turnloop-acp-other-project-"));
  onTestFinished(() => rm(other, { recursive: true, force: true }));
  const config = join(other, ".turnloop", "config.json");
  await mkdir(join(other, ".turnloop"));
  await writeFile(config, JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }));
  const held =
    `${config}: not applying permissions.allow: this project is not trusted, ` +
    "and this key loosens permissions, sends data elsewhere or changes what a run may spend; run " +
    "`turnloop mcp trust` in it to trust the whole project config";
  const agent = fixture.startAgent();
  await agent.initialize();
  const open = { cwd: other, mcpServers: [] };
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, { ...open });
  const isWarning = (update: acp.SessionUpdate) => shown([update]).length > 0;
  await agent.waitForUpdate(sessionId, isWarning);
  const second = await agent.client.request(acp.methods.agent.session.new, { ...open });
  await agent.waitForUpdate(second.sessionId, isWarning);
  await agent.client.request(acp.methods.agent.session.load, { ...open, sessionId });
  await agent.waitUntil(
    () => agent.updates(sessionId).filter(isWarning).length === 2,
    "the load's warning",
  );
  for (const opened of [sessionId, second.sessionId]) {
    expect(
      (await fixture.persisted(opened))
        .filter((event) => event.type === "session.warning")
        .map((event) => event.data),
    ).toEqual(
      Array(opened === sessionId ? 2 : 1).fill({
        warningType: "project_not_trusted",
        message: held,
      }),
    );
  }
  expect(await agent.end()).toBe(0);
  expect(agent.stderr).toBe(`turnloop: warning: ${held}\n`);
});

// Round 3 session 36: an untrusted project's `model` and `maxTurns` applied; they choose which
// provider reads the code and what a run spends, so they are held as -p holds them
// (test/cli/project-spending-holds.test.ts): the editor is told, the user's own values apply,
// and the project's once it is trusted.
test("an untrusted project's model and maxTurns are held: the editor is told, the user's apply", async () => {
  await writeFile(
    join(fixture.home, "config.json"),
    JSON.stringify({ model: "openai-compatible:fake-model", maxTurns: 1 }),
  );
  const config = join(fixture.cwd, ".turnloop", "config.json");
  await mkdir(join(fixture.cwd, ".turnloop"));
  await writeFile(
    config,
    JSON.stringify({ model: "openai-compatible:pricey-model", maxTurns: 500 }),
  );
  const held =
    `${config}: not applying model, maxTurns: this project is not trusted, ` +
    "and these keys loosen permissions, send data elsewhere or change what a run may spend; run " +
    "`turnloop mcp trust` in it to trust the whole project config";
  const read = {
    toolCalls: [{ id: "call_1", name: "view", arguments: JSON.stringify({ path: "." }) }],
  };
  /** A prompt whose model gives `replies`: its stop reason, the models asked, the thoughts. */
  const promptOnce = async (...replies: Parameters<typeof fixture.server.enqueue>) => {
    const before = fixture.server.requests.length;
    fixture.server.enqueue(...replies);
    const agent = fixture.startAgent({ TURNLOOP_MODEL: "" });
    await agent.initialize();
    const sessionId = await agent.newSession();
    const answer = await agent.prompt(sessionId, "look around");
    expect(await agent.end()).toBe(0);
    const models = fixture.server.requests
      .slice(before)
      .map((request) => (request.body as { model: string }).model);
    return { answer, models, thoughts: shown(agent.updates(sessionId)) };
  };
  // maxTurns 1: the turn that reads ends the prompt.
  expect(await promptOnce(read)).toEqual({
    answer: { stopReason: "max_turn_requests" },
    models: ["fake-model"],
    thoughts: [`⚠ ${held}\n`],
  });

  await trustProject(fixture.home, fixture.cwd);
  expect(await promptOnce(read, { text: "Done." })).toEqual({
    answer: { stopReason: "end_turn" },
    models: ["pricey-model", "pricey-model"],
    thoughts: [],
  });
});
