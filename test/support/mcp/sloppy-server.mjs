#!/usr/bin/env node
/**
 * A hand-written stdio MCP server (one JSON-RPC message a line) whose tool list a careful server
 * would not send: `echo` twice, and both `get.data` and `get_data` (turnloop cleans the first to
 * `get_data` too). A call answers `called <tool> with <arguments>`. The MCP server SDK refuses
 * to register a name twice, hence this one.
 */

import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
});
const TOOLS = [
  tool("echo", "first echo"),
  tool("echo", "second echo"),
  tool("get.data", "dotted name"),
  tool("get_data", "underscored name"),
];

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.method) {
    case "initialize":
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "sloppy", version: "1" },
        },
      });
      return;
    case "tools/list":
      send({ jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } });
      return;
    case "tools/call": {
      const { name, arguments: input } = message.params;
      const text = `called ${name} with ${JSON.stringify(input ?? {})}`;
      send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
      return;
    }
    default:
      if (message.id !== undefined) {
        send({ jsonrpc: "2.0", id: message.id, result: {} });
      }
  }
});
