import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { qualifiedToolName } from "../../src/tools/mcp/tools.js";
import { test } from "../support/fixtures.js";
import { stdioEntry } from "../support/mcp/servers.js";

// Round 3, session 24 (a leftover of session 23): a tool name past 64 characters is cut with a
// hash (tools/mcp/tools.ts `qualifiedToolName`); once its server stopped, a call of it read
// "does not exist" instead of saying the server stopped, when the server's name was too long for
// its whole prefix to stay in the cut name. A real stdio server that exits mid-call, under `-p`.

/** 60 characters: `<server>__` (62) does not fit before the hash (55 characters are kept). */
const SERVER = `server-with-a-long-name-${"x".repeat(36)}`;

test("-p: a call of a cut tool name of a server that stopped says the server stopped", async ({
  cli,
  model,
  repository,
}) => {
  const crash = qualifiedToolName(SERVER, "crash");
  const echo = qualifiedToolName(SERVER, "echo");
  expect([crash.length, echo.length]).toEqual([64, 64]);
  await writeFile(
    join(repository, "servers.json"),
    JSON.stringify({ mcpServers: { [SERVER]: stdioEntry() } }),
  );
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: crash, arguments: "{}" }] },
    { toolCalls: [{ id: "call_2", name: echo, arguments: '{"text":"x"}' }] },
    { text: "The server is gone." },
  );
  const result = await cli(["-p", "go", "--mcp-config", "servers.json", "--allow-tool", "mcp"]);
  expect(result.code, result.stderr).toBe(0);
  const last = model.requests[2]?.body as { messages: Array<{ role: string; content: string }> };
  expect(last.messages.filter((message) => message.role === "tool")).toEqual([
    {
      role: "tool",
      tool_call_id: "call_1",
      content: `MCP server ${SERVER} stopped: the server exited with exit code 3; its tools are unavailable until it is started again (resuming the session starts it anew)`,
    },
    {
      role: "tool",
      tool_call_id: "call_2",
      content: `MCP server ${SERVER} stopped: the server exited with exit code 3; its tools are unavailable until it is started again (resuming the session starts it anew)`,
    },
  ]);
});
