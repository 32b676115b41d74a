/**
 * A stdio MCP server written by hand (newline-delimited JSON-RPC, no SDK: the SDK's own server
 * would not list a tool out of shape) that lists the tools of the JSON in its first argument as
 * given, and answers a call of any of them with `called <name>`.
 *
 *   node listed-tools-server.mjs '[{"name":"ok","inputSchema":{"type":"object"}}]' [GATE]
 *
 * With a second argument, it reads nothing until the file GATE exists (a server still starting).
 */
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";

const tools = JSON.parse(process.argv[2] ?? "[]");
const gate = process.argv[3];
while (gate !== undefined && !existsSync(gate)) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    const { protocolVersion } = message.params;
    const serverInfo = { name: "listed-tools", version: "1.0.0" };
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion, capabilities: { tools: {} }, serverInfo },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools } });
  } else if (message.method === "tools/call") {
    const text = `called ${message.params.name}`;
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } });
  }
});
