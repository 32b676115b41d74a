import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A fresh user's trial: turnloop's messages on stderr began with `error:` in some places (a
// prompt's provider error, with and without --quiet), `warning:` or nothing in others (an MCP
// server that failed, `sessions delete`), and `turnloop:` elsewhere. One prefix now: `turnloop:`
// (a warning `turnloop: warning:`). Whole stderr, through the built CLI as a child process.

const HTTP_401 = {
  status: 401,
  body: { error: { message: "invalid api key", type: "authentication_error" } },
};

describe("one prefix on stderr", () => {
  test("a prompt's error, with and without --quiet, and an MCP server that failed", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(
      join(repository, "servers.json"),
      JSON.stringify({ mcpServers: { tracker: { command: "/nonexistent/tracker-mcp" } } }),
    );
    model.enqueue(HTTP_401);
    const quiet = await cli(["-p", "hi", "-q"]);
    expect(quiet).toEqual({
      code: 1,
      signal: null,
      stdout: "",
      stderr: "turnloop: HTTP 401: invalid api key\n",
    });
    model.enqueue(HTTP_401);
    const full = await cli(["-p", "hi", "--mcp-config", "servers.json"]);
    const lines = full.stderr.trimEnd().split("\n");
    expect({ code: full.code, stdout: full.stdout, lines: lines.slice(0, -1) }).toEqual({
      code: 1,
      stdout: "",
      lines: expect.arrayContaining(["turnloop: HTTP 401: invalid api key"]),
    });
    // Every line but the closing summary is turnloop's, and says so.
    expect(lines.slice(0, -1).filter((line) => !line.startsWith("turnloop: "))).toEqual([]);
    // The failed request is counted, and said to have failed (usage-totals.ts).
    expect(lines.at(-1)).toMatch(/^1 turn \(1 failed\) · .* · session [0-9a-f-]{36}$/);
  });

  test("sessions delete says what it did with the prefix", async ({ cli, model }) => {
    model.enqueue({ text: "hello" });
    const run = await cli(["-p", "hi", "--output-format", "json"]);
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    expect(await cli(["sessions", "delete", sessionId])).toEqual({
      code: 0,
      signal: null,
      stdout: "",
      stderr: `turnloop: deleted ${sessionId}\n`,
    });
  });
});
