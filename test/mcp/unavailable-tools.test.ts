import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { stdioEntry } from "../support/mcp/servers.js";

// The trial of round 3, session 22: after an MCP server crashed, or while a slow one was still
// starting, a call of its tool was answered "Tool '…' does not exist", which was not true. Now
// the model (and the user's line for that call) reads that the server stopped, and why; and a
// call of a server still starting waits for it (at most its connect timeout), then runs.

function call(id: string, name: string, args: object = {}) {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}

/** The tool results the model was sent in request `index`, by call id. */
function toolResults(requests: ReadonlyArray<{ body: unknown }>, index: number) {
  const body = requests[index]?.body as { messages: Array<Record<string, unknown>> };
  return body.messages
    .filter((message) => message.role === "tool")
    .map((message) => [message.tool_call_id, message.content]);
}

const STOPPED =
  "MCP server st stopped: the server exited with exit code 3; its tools are unavailable until it is started again (resuming the session starts it anew)";

describe("a call of an MCP server's tool the model is not offered (-p)", () => {
  test("after the server crashed: the model and the tool line read that it stopped, and why", async ({
    cli,
    model,
    repository,
  }) => {
    const config = join(repository, "servers.json");
    await writeFile(config, JSON.stringify({ mcpServers: { st: stdioEntry() } }));
    model.enqueue(call("call_1", "st__crash"), call("call_2", "st__echo", { text: "x" }), {
      text: "Done.",
    });
    const result = await cli(["-p", "go", "--allow-all-tools", "--mcp-config", config]);
    expect(result.code).toBe(0);
    expect(toolResults(model.requests, 2)).toEqual([
      ["call_1", STOPPED],
      ["call_2", STOPPED],
    ]);
    const lines = result.stderr
      .split("\n")
      .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
    expect(lines.filter((line) => line.includes("MCP server st"))).toEqual([
      "turnloop: MCP server st failed: the server exited with exit code 3; its tools are not available",
      `✗ st__crash failed (N ms): ${STOPPED}`,
      `✗ st__echo text=x failed (N ms): ${STOPPED}`,
    ]);
  });

  test("a crash with stderr lines: one line on every face, the quote's breaks shown as ⏎ (trial 38 F3)", async ({
    cli,
    model,
    repository,
  }) => {
    const config = join(repository, "servers.json");
    await writeFile(config, JSON.stringify({ mcpServers: { st: stdioEntry("--crash-stderr") } }));
    model.enqueue(call("call_1", "st__crash"), { text: "Done." });
    const result = await cli(["-p", "go", "--allow-all-tools", "--mcp-config", config]);
    expect(result.code).toBe(0);
    const why = "the server exited with exit code 3 (stderr: test server ready ⏎ about to crash)";
    const stopped = `MCP server st stopped: ${why}; its tools are unavailable until it is started again (resuming the session starts it anew)`;
    expect(toolResults(model.requests, 1)).toEqual([["call_1", stopped]]);
    // The tool line's reason is cut at 160 characters; the rest is under it, not lost.
    const lines = result.stderr
      .split("\n")
      .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
    const at = lines.findIndex((line) => line.startsWith("✗ st__crash"));
    expect([
      ...lines.filter((line) => line.startsWith("turnloop: MCP")),
      ...lines.slice(at, at + 2),
    ]).toEqual([
      `turnloop: MCP server st failed: ${why}; its tools are not available`,
      `✗ st__crash failed (N ms): ${stopped.replace(/ \(resuming the session starts it anew\)$/, "…")}`,
      "    …(resuming the session starts it anew)",
    ]);
  });

  test("while the server is still starting: the call starts at once, says it waits for the server, then runs", async ({
    cli,
    model,
    repository,
    home,
    loggedEvents,
  }) => {
    const gate = join(repository, "gate");
    const config = join(repository, "servers.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { slow: stdioEntry("--start-gate", gate) } }),
    );
    model.enqueue(call("call_1", "slow__echo", { text: "y" }), { text: "Done." });
    let stderr = "";
    const running = cli(["-p", "go", "--allow-all-tools", "--mcp-config", config], {
      env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "0" },
      onStart: (child) => {
        child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
        });
      },
    });
    // The first request went without the server's tools; only then may it start.
    await expect.poll(() => model.requests.length).toBe(1);
    const body = model.requests[0]?.body as { tools?: Array<{ function: { name: string } }> };
    expect(body.tools?.map((tool) => tool.function.name)).not.toContain("slow__echo");
    // Trial 38 F2: the wait is said (on -p's stderr, at once) while the server is held back.
    // What is left of the server's connection attempt depends on the clock: masked.
    const waitLine = "slow__echo: waiting for MCP server slow to start (at most N s more)";
    await expect
      .poll(() => stderr.replace(/at most [\d.]+ s more/, "at most N s more"), { timeout: 30_000 })
      .toContain(waitLine);
    await writeFile(gate, "");
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Done.\n");
    expect(toolResults(model.requests, 1)).toEqual([["call_1", "echo: y"]]);
    // The start is logged when the call starts, with its server; its duration counts the wait.
    const [sessionId] = await readdir(join(home, "session-state"));
    const events = await loggedEvents(sessionId ?? "");
    expect(
      events
        .filter((event) => event.type.startsWith("tool."))
        .map((event) => (event.type === "tool.execution_start" ? event.data : event.type)),
    ).toEqual([
      {
        toolCallId: "call_1",
        toolName: "slow__echo",
        arguments: { text: "y" },
        mcpServerName: "slow",
      },
      "tool.execution_complete",
    ]);
    expect(result.stderr).not.toMatch(/✓ slow__echo .*\(0 ms\)/);
  });
});
