import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import { test } from "../support/fixtures.js";

/**
 * Session 43, N2: a provider that refuses a request for a tool's schema (HTTP 400 naming the
 * tool, OpenAI's `invalid_function_parameters`) was said as the provider words it, naming only
 * `raw__wide`: nothing said the tool came from MCP server raw, whose schema it is. The error now
 * names the server and its own name of the tool.
 */

const SERVER = fileURLToPath(new URL("../support/mcp/listed-tools-server.mjs", import.meta.url));
const REFUSAL = {
  error: {
    message:
      "Invalid schema for function 'raw__wide': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    type: "invalid_request_error",
    param: "tools[0].function.parameters",
    code: "invalid_function_parameters",
  },
};

test("a provider's 400 naming an MCP tool names the tool's server", async ({ openHarness }) => {
  const target = await openHarness();
  const tools = [{ name: "wide", inputSchema: { type: "object" } }];
  const servers = await startMcpServers(
    target.session,
    {
      raw: {
        type: "stdio",
        command: process.execPath,
        args: [SERVER, JSON.stringify(tools)],
        env: {},
      },
    },
    { env: process.env },
  );
  await servers?.whenStarted();
  target.server.enqueue({ status: 400, body: REFUSAL });
  const outcome = await target.prompt("go");
  const said =
    "HTTP 400: Invalid schema for function 'raw__wide': In context=(), 'additionalProperties' is required to be supplied and to be false. (raw__wide is tool \"wide\" of MCP server raw)";
  expect(outcome).toEqual({
    error: { errorType: "invalid_request", message: said, statusCode: 400 },
  });
  expect(
    target.events.flatMap((event) => (event.type === "session.error" ? [event.data] : [])),
  ).toEqual([{ errorType: "invalid_request", message: said, statusCode: 400 }]);
});
