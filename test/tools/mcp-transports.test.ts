/**
 * MCP servers' surroundings: what a stdio server inherits, Streamable HTTP with configured
 * headers, and the server's process group ended with the session (mcp.test.ts has the loop).
 */

import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import {
  livePids,
  serverLog,
  startHttpServer,
  stdioServer,
  waitForLog,
} from "../support/mcp/servers.js";
import { call, withServers } from "./mcp-support.js";

describe("MCP servers' environment, transports and processes", () => {
  test("a stdio server inherits no API keys of turnloop's, only its safe variables and its own env", async ({
    openHarness,
  }) => {
    process.env.TURNLOOP_TEST_API_KEY = "do-not-pass-me";
    try {
      const { harness } = await withServers(openHarness, () => ({
        t: { ...stdioServer(), env: { OWN_SETTING: "given" } },
      }));
      harness.server.enqueue(
        {
          toolCalls: ["TURNLOOP_TEST_API_KEY", "OWN_SETTING", "PATH"].map((name, index) => ({
            id: `call_${index}`,
            name: "t__env",
            arguments: JSON.stringify({ name }),
          })),
        },
        { text: "ok" },
      );
      await harness.prompt("env");
      const results = harness.events
        .filter((event) => event.type === "tool.execution_complete")
        .map((event) => event.data.result.content);
      expect(results).toEqual([
        "TURNLOOP_TEST_API_KEY=(unset)",
        "OWN_SETTING=given",
        `PATH=${process.env.PATH}`,
      ]);
    } finally {
      delete process.env.TURNLOOP_TEST_API_KEY;
    }
  });

  test("Streamable HTTP on 127.0.0.1, with the configured headers", async ({ openHarness }) => {
    const logFile = join(process.env.TMPDIR ?? "/tmp", `turnloop-mcp-http-${process.pid}.log`);
    const http = await startHttpServer("--log", logFile);
    try {
      const { harness } = await withServers(openHarness, () => ({
        web: { type: "http", url: http.url, headers: { "X-Test": "sent" } },
      }));
      harness.server.enqueue(call("web__echo", { text: "over http" }), { text: "done" });
      await harness.prompt("web");
      const complete = harness.events.find((event) => event.type === "tool.execution_complete");
      expect(complete?.data).toMatchObject({
        success: true,
        result: { content: "echo: over http" },
      });
      expect(serverLog(logFile).some((entry) => entry.header === "sent")).toBe(true);
    } finally {
      await http.stop();
    }
  });

  test("closing the session kills the server's whole process group", async ({ openHarness }) => {
    const { harness, log } = await withServers(openHarness, (file) => ({
      t: stdioServer("--grandchild", "--log", file),
    }));
    harness.server.enqueue({ text: "hi" });
    await harness.prompt("hi");
    const entries = await waitForLog(log, (lines) =>
      lines.some((entry) => typeof entry.grandchild === "number"),
    );
    expect(entries.length).toBeGreaterThan(0);
    expect(livePids(log).length).toBe(2);
    await harness.session.close();
    expect(livePids(log)).toEqual([]);
  });
});
