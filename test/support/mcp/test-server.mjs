#!/usr/bin/env node
/**
 * A real MCP server for tests, built with the MCP server SDK. Plain JavaScript so it runs as a
 * child process without a TypeScript loader.
 *
 *   node test-server.mjs [--http] [--never-initialize] [--grandchild] [--log FILE]
 *
 * stdio by default; `--http` serves Streamable HTTP on 127.0.0.1 (a free port, printed as
 * `listening <port>` on stdout). `--never-initialize` reads stdin and never answers
 * (with `--log`, it logs `{ received: "initialize" }` when that request comes).
 * `--grandchild` starts a `sleep` child in the same process group (to test group kills).
 * `--log FILE` appends one JSON line per notable thing (`started`, `called`, `cancelled`).
 * `--start-delay MS` waits that long before serving stdio (a slow server); `--start-gate FILE`
 * waits until FILE exists. `--crash-stderr` writes two lines to stderr before `crash` exits
 * (`test server ready`, `about to crash`).
 *
 * Tools: echo {text}, image {}, fail {}, crash {}, hang {}, grow {}, big {chars, start?},
 * env {name}, resource {}.
 */

import { spawn } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const args = process.argv.slice(2);
const logIndex = args.indexOf("--log");
const logFile = logIndex === -1 ? undefined : args[logIndex + 1];
const log = (entry) => {
  if (logFile !== undefined) {
    appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
  }
};

/** A 1×1 red PNG. */
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function buildServer() {
  const server = new McpServer({ name: "turnloop-test", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => {
      log({ called: "echo", text });
      return { content: [{ type: "text", text: `echo: ${text}` }] };
    },
  );
  server.registerTool("image", { description: "A tiny picture" }, async () => ({
    content: [
      { type: "text", text: "a red pixel" },
      { type: "image", data: PIXEL, mimeType: "image/png" },
    ],
  }));
  server.registerTool("fail", { description: "Always fails" }, async () => ({
    content: [{ type: "text", text: "the widget is broken" }],
    isError: true,
  }));
  server.registerTool("crash", { description: "Exits mid-call" }, async () => {
    log({ called: "crash" });
    if (args.includes("--crash-stderr")) {
      process.stderr.write("test server ready\nabout to crash\n");
    }
    setTimeout(() => process.exit(3), 20);
    return new Promise(() => {});
  });
  // A tool without an input schema gets the request context as its only argument.
  server.registerTool("hang", { description: "Never answers unless cancelled" }, (context) => {
    log({ called: "hang" });
    return new Promise((resolve) => {
      context.mcpReq.signal.addEventListener("abort", () => {
        log({ cancelled: "hang" });
        resolve({ content: [{ type: "text", text: "stopped" }] });
      });
    });
  });
  server.registerTool("grow", { description: "Adds the tool 'extra'" }, async () => {
    server.registerTool("extra", { description: "Added at run time" }, async () => ({
      content: [{ type: "text", text: "extra here" }],
    }));
    return { content: [{ type: "text", text: "added extra" }] };
  });
  server.registerTool(
    "big",
    {
      description: "A long text",
      inputSchema: z.object({ chars: z.number(), start: z.string().optional() }),
    },
    async ({ chars, start = "" }) => ({
      content: [{ type: "text", text: `${start}${"x".repeat(chars - 3 - start.length)}END` }],
    }),
  );
  server.registerTool(
    "env",
    { description: "One environment variable", inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({
      content: [{ type: "text", text: `${name}=${process.env[name] ?? "(unset)"}` }],
    }),
  );
  server.registerTool("resource", { description: "An embedded resource" }, async () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "note body" },
      },
      { type: "resource_link", uri: "file:///other.txt", name: "other" },
    ],
  }));
  return server;
}

log({ started: true });
if (args.includes("--grandchild")) {
  const sleeper = spawn("sleep", ["300"], { stdio: "ignore" });
  log({ grandchild: sleeper.pid });
}
const gateIndex = args.indexOf("--start-gate");
if (gateIndex !== -1) {
  while (!existsSync(args[gateIndex + 1])) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const delayIndex = args.indexOf("--start-delay");
if (delayIndex !== -1) {
  await new Promise((resolve) => setTimeout(resolve, Number(args[delayIndex + 1])));
}

if (args.includes("--never-initialize")) {
  // Logs `{ received: "initialize" }` once the request has come (a test's gate), never answers.
  let received = "";
  process.stdin.setEncoding("utf8").on("data", (chunk) => {
    const before = received.includes('"method":"initialize"');
    received += chunk;
    if (!before && received.includes('"method":"initialize"')) {
      log({ received: "initialize" });
    }
  });
  setInterval(() => {}, 1_000);
} else if (args.includes("--http")) {
  const http = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) {
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") {
        headers.set(name, value);
      }
    }
    log({ header: request.headers["x-test"] ?? null });
    if (request.headers.authorization !== undefined) {
      log({ authorization: request.headers.authorization });
    }
    const server = buildServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    const answer = await transport.handleRequest(
      new Request(`http://127.0.0.1${request.url}`, {
        method: request.method,
        headers,
        ...(body.length === 0 ? {} : { body }),
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body !== null) {
      for await (const chunk of answer.body) {
        response.write(chunk);
      }
    }
    response.end();
  });
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
} else {
  await buildServer().connect(new StdioServerTransport());
}
