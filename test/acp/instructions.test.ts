import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
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
