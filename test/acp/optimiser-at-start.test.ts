import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { coldCodeCache } from "../support/test-home.js";
import { ChildFixture } from "./child-process.js";

// Issue 26, figure 7c: Node's `normalizeString` (path.resolve), made hot by the module loader, was
// the first function V8 optimised in `turnloop acp`, paging in the optimising compiler before the
// first prompt's answer. The bundle's scripts load without Node's module loader, their paths
// joined as text (src/cli/code-cache.cts), so nothing makes it hot (src/cli/v8-flags.ts). V8's
// `--trace-opt` lines (on stdout, between the protocol's lines) say which functions it marks.

const fixture = ChildFixture.forEachTest();

test("acp: Node's normalizeString is never marked for optimisation in a run of one prompt", async () => {
  // A first run in a fresh home: no code cache (test/support/test-home.ts).
  await coldCodeCache(fixture.home);
  fixture.server.enqueue({ text: "Done." });
  const child = spawn(process.execPath, ["--trace-opt", CLI_PATH, "acp"], {
    cwd: fixture.cwd,
    env: fixture.environment(),
  });
  const send = (message: object) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const protocol: Array<{ id?: number; result?: { sessionId?: string; stopReason?: string } }> = [];
  const traces: string[] = [];
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  let partial = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith('{"jsonrpc"')) {
        traces.push(line);
        continue;
      }
      const message = JSON.parse(line) as (typeof protocol)[number];
      protocol.push(message);
      if (message.id === 1) {
        send({ id: 2, method: "session/new", params: { cwd: fixture.cwd, mcpServers: [] } });
      } else if (message.id === 2) {
        const prompt = [{ type: "text", text: "say done" }];
        send({
          id: 3,
          method: "session/prompt",
          params: { sessionId: message.result?.sessionId, prompt },
        });
      } else if (message.id === 3) {
        child.stdin.end();
      }
    }
  });
  send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  expect(await closed).toBe(0);
  expect(protocol.find((message) => message.id === 3)?.result?.stopReason).toBe("end_turn");
  expect(traces.filter((line) => line.includes("normalizeString"))).toEqual([]);
  // In a bare Node, the same trace names it once path.resolve is called often (so the check
  // above can fail): a few hundred calls, as many as the agent's module loads make.
  const bare = spawn(process.execPath, [
    "--trace-opt",
    "-e",
    `for (let i = 0; i < 1000; i++) require("node:path").resolve(${JSON.stringify(CLI_PATH)});`,
  ]);
  let bareTrace = "";
  bare.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    bareTrace += chunk;
  });
  await new Promise((resolve) => bare.on("close", resolve));
  expect(bareTrace).toContain("normalizeString");
});
