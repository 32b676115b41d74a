import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Round 3, session 21: a relative path in a project file's permission rule is read against the
// project's folder (the nearest folder up holding .git), not the session's: the root's
// `view(secret/**)` covers `<root>/secret/` for a session an editor opens in `<root>/src` too.
// Before, the view of ../secret/creds.txt was asked about, and the editor's yes showed the secret.

const fixture = ChildFixture.forEachTest();

test("the root's deny rule view(secret/**) refuses a view of ../secret from a session in src/", async () => {
  const root = fixture.cwd;
  await mkdir(join(root, ".git"));
  await mkdir(join(root, ".turnloop"));
  await writeFile(
    join(root, ".turnloop", "config.json"),
    JSON.stringify({ permissions: { deny: ["view(secret/**)"] } }),
  );
  await mkdir(join(root, "secret"));
  await writeFile(join(root, "secret", "creds.txt"), "password=hunter2xyz\n");
  const source = join(root, "src");
  await mkdir(source);
  fixture.server.enqueue(
    {
      toolCalls: [
        { id: "call_1", name: "view", arguments: JSON.stringify({ path: "../secret/creds.txt" }) },
      ],
    },
    { text: "Done." },
  );
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: source,
    mcpServers: [],
  });
  expect(await agent.prompt(sessionId, "read the secret")).toEqual({ stopReason: "end_turn" });
  const completions = (await fixture.persisted(sessionId)).flatMap((event) =>
    event.type === "tool.execution_complete" || event.type === "permission.requested"
      ? [{ type: event.type, data: event.data }]
      : [],
  );
  expect(completions).toEqual([
    {
      type: "tool.execution_complete",
      data: expect.objectContaining({
        toolCallId: "call_1",
        success: false,
        error: expect.objectContaining({
          message: `Permission denied for 'view': denied by the rule "view(secret/**)" in ${join(root, ".turnloop", "config.json")}`,
        }),
      }),
    },
  ]);
  expect(agent.behaviour.calls.map((call) => call.method)).not.toContain(
    "session/request_permission",
  );
  // `/permissions` shows the rule as written, with the folder its paths are read against.
  const before = agent.updates(sessionId).length;
  expect(await agent.prompt(sessionId, "/permissions")).toEqual({ stopReason: "end_turn" });
  const listing = agent
    .updates(sessionId)
    .slice(before)
    .flatMap((update) =>
      update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    )
    .join("");
  expect(listing).toContain(
    `rules from the config files and flags:\n  deny view(secret/**)  (from ${join(root, ".turnloop", "config.json")}, paths relative to ${root})\n`,
  );
  expect(await agent.end()).toBe(0);
});
