import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { trustProject } from "../../src/session/config-paths.js";
import { ChildFixture } from "./child-process.js";
import { requestMessages } from "./support.js";

const fixture = ChildFixture.forEachTest();

test("turnloop acp reads the session's AGENTS.md and the config file, and records the instructions", async () => {
  await writeFile(join(fixture.cwd, "AGENTS.md"), "Editor sessions follow this rule.\n");
  await mkdir(join(fixture.cwd, ".turnloop"));
  await writeFile(
    join(fixture.cwd, ".turnloop", "config.json"),
    JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }),
  );
  // The project's allow rules apply once it is trusted (held before: the test below).
  await trustProject(fixture.home, fixture.cwd);
  fixture.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }] },
    { text: "Done." },
  );
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  const answer = await agent.prompt(sessionId, "go");
  expect(answer).toEqual({ stopReason: "end_turn" });
  const system = requestMessages(fixture.server, 0)[0];
  expect(system?.role).toBe("system");
  expect(String(system?.content)).toContain(
    `<instructions path="${join(fixture.cwd, "AGENTS.md")}">\nEditor sessions follow this rule.\n</instructions>`,
  );
  // The project's rule allowed the command: nobody was asked.
  expect(agent.behaviour.calls.map((entry) => entry.method)).not.toContain(
    "session/request_permission",
  );
  const events = await fixture.persisted(sessionId);
  expect(events.find((event) => event.type === "session.instructions_loaded")?.data).toEqual({
    files: [
      { path: join(fixture.cwd, "AGENTS.md"), scope: "project", bytes: 34, truncated: false },
    ],
  });
});

test("turnloop acp holds an untrusted project's allow rules: one warning on stderr, and the editor is asked", async () => {
  const path = join(fixture.cwd, ".turnloop", "config.json");
  await mkdir(join(fixture.cwd, ".turnloop"));
  await writeFile(path, JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }));
  fixture.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }] },
    { text: "Done." },
  );
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  expect(await agent.prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" });
  expect(agent.behaviour.calls.map((entry) => entry.method)).toContain(
    "session/request_permission",
  );
  const warning = `turnloop: warning: ${path}: not applying permissions.allow: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config\n`;
  await agent.waitUntil(() => agent.stderr.includes(warning), "the warning");
  expect(agent.stderr.split(warning)).toHaveLength(2);
});

test("turnloop acp tells the editor, as thoughts, of an instruction file cut to fit and one that is not text", async () => {
  // Session 26's trial: a cut or left-out file was said only by `sessions show`.
  // Not text: left out, and the folder's next name is read.
  await writeFile(join(fixture.cwd, "AGENTS.md"), Buffer.from([0, 1, 2, 3, 0xff, 0]));
  await writeFile(join(fixture.cwd, "CLAUDE.md"), "a".repeat(40_000));
  fixture.server.enqueue({ text: "Hello.", usage: null }, { text: "Again.", usage: null });
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const cut =
    `${join(fixture.cwd, "CLAUDE.md")} was cut to fit: only its first 32768 of 40000 bytes are used ` +
    `(its share of turnloop's 32768-byte budget for the project's files); README "Project instructions" says how the budget is shared`;
  const binary = `${join(fixture.cwd, "AGENTS.md")} is binary data, not text; it was left out of the instructions`;
  // Said once per open session: the second prompt, with the same files, says nothing again.
  expect(await agent.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
  const messages = agent
    .updates(sessionId)
    .flatMap((update) =>
      (update.sessionUpdate === "agent_message_chunk" ||
        update.sessionUpdate === "agent_thought_chunk") &&
      update.content.type === "text"
        ? [[update.sessionUpdate, update.content.text]]
        : [],
    );
  expect(messages).toEqual([
    ["agent_thought_chunk", `⚠ ${binary}\n`],
    ["agent_thought_chunk", `⚠ ${cut}\n`],
    ["agent_message_chunk", "Hello."],
    ["agent_message_chunk", "Again."],
  ]);
  const warnings = (await fixture.persisted(sessionId)).filter(
    (event) => event.type === "session.warning",
  );
  expect(warnings.map((event) => event.data)).toEqual([
    { warningType: "instructions_not_text", message: binary },
    { warningType: "instructions_cut", message: cut },
  ]);
  expect(await agent.end()).toBe(0);
});
