import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { MCP_STARTUP_WAIT } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

/**
 * A trial (round 3 session 26): a server listing `echo` twice sent `w__echo` twice in the model's
 * `tools`, and `get.data` beside `get_data` cleaned to `w__get_data` twice; Anthropic refuses a
 * request naming a tool twice (400), so one sloppy server broke every request. Every name offered
 * is now unique (tools/mcp/tools.ts `OfferedTools`), a call reaches the server's own tool, and the
 * renaming is said: a warning on stderr, and under the server in `turnloop mcp list`.
 */

const SLOPPY = fileURLToPath(new URL("../support/mcp/sloppy-server.mjs", import.meta.url));
const entry = { command: process.execPath, args: [SLOPPY] };
const BUILT_IN = ["view", "create", "edit", "grep", "glob", "bash", "update_plan"];

test("-p: every tool name sent is unique, a renamed tool's call reaches its own tool, the renaming is said", async ({
  cli,
  model,
  repository,
}) => {
  // `a.b` and `a_b` clean to the same prefix: their tools would meet too.
  await writeFile(
    join(repository, "servers.json"),
    JSON.stringify({ mcpServers: { w: entry, "a.b": entry, a_b: entry } }),
  );
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: "w__get_data_2", arguments: '{"n":1}' }] },
    { toolCalls: [{ id: "call_2", name: "a_b__get_data_3", arguments: '{"n":2}' }] },
    { text: "done" },
  );
  const result = await cli(["-p", "go", "--mcp-config", "servers.json", "--allow-all-tools"], {
    env: MCP_STARTUP_WAIT,
  });
  expect(result.stdout).toBe("done\n");
  expect(result.code).toBe(0);
  const body = model.requests[0]?.body as { tools: Array<{ function: { name: string } }> };
  expect(body.tools.map((tool) => tool.function.name)).toEqual([
    ...BUILT_IN,
    "w__echo",
    "w__get_data",
    "w__get_data_2",
    "a_b__echo",
    "a_b__get_data",
    "a_b__get_data_2",
    "a_b__echo_2",
    "a_b__get_data_3",
    "a_b__get_data_4",
  ]);
  const results = [1, 2].map(
    (index) => chatMessages(model, index).findLast((message) => message.role === "tool")?.content,
  );
  expect(results).toEqual(['called get_data with {"n":1}', 'called get.data with {"n":2}']);
  const warnings = result.stderr.split("\n").filter((line) => line.includes("MCP server"));
  expect(warnings).toEqual([
    'turnloop: warning: MCP server w: tool "echo" is listed twice; offered once, as w__echo',
    'turnloop: warning: MCP server w: tool "get_data" is offered as w__get_data_2: w__get_data is tool "get.data" of server w',
    'turnloop: warning: MCP server a.b: tool "echo" is listed twice; offered once, as a_b__echo',
    'turnloop: warning: MCP server a.b: tool "get_data" is offered as a_b__get_data_2: a_b__get_data is tool "get.data" of server a.b',
    'turnloop: warning: MCP server a_b: tool "echo" is offered as a_b__echo_2: a_b__echo is tool "echo" of server a.b',
    'turnloop: warning: MCP server a_b: tool "echo" is listed twice; offered once, as a_b__echo_2',
    'turnloop: warning: MCP server a_b: tool "get.data" is offered as a_b__get_data_3: a_b__get_data is tool "get.data" of server a.b',
    'turnloop: warning: MCP server a_b: tool "get_data" is offered as a_b__get_data_4: a_b__get_data is tool "get.data" of server a.b',
  ]);
});

test("turnloop mcp list: the renamed and doubled tools under their server", async ({
  cli,
  repository,
}) => {
  await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: { w: entry } }));
  const result = await cli(["mcp", "list", "--mcp-config", "servers.json"], {
    env: MCP_STARTUP_WAIT,
  });
  expect(result).toEqual({
    code: 0,
    signal: null,
    stdout:
      "w  stdio  connected  4 tools\n" +
      '  tool "echo" is listed twice; offered once, as w__echo\n' +
      '  tool "get_data" is offered as w__get_data_2: w__get_data is tool "get.data" of server w\n',
    stderr: "",
  });
});
