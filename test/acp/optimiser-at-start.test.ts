import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { chatMessages, type Reply } from "../support/fake-model-server.js";
import { coldCodeCache } from "../support/test-home.js";
import { ChildFixture } from "./child-process.js";

// Issue 26, figure 7c: Node's `normalizeString` (path.resolve), made hot by the module loader, was
// the first function V8 optimised in `turnloop acp`, paging in the optimising compiler before the
// first prompt's answer. The bundle's scripts load without Node's module loader, their paths
// joined as text (src/cli/code-cache.cts), so nothing makes it hot (src/cli/v8-flags.ts). V8's
// `--trace-opt` lines (on stdout, between the protocol's lines) say which functions it marks.
// Session 31's hidden places made it hot again in a prompt answered with one `view` (two
// `path.resolve`s for each place and path compared, a few hundred a call; about 4 MiB of peak RSS:
// bench/notes/rss33.md); they compare paths as text now (src/permissions/hidden-places.ts).

const fixture = ChildFixture.forEachTest();

/**
 * Runs `turnloop acp --trace-opt`: `initialize`, `session/new`, one `session/prompt` answered by
 * the fake model's `replies`, then its stdin closed. Resolves to its exit code, the prompt's stop
 * reason and V8's trace lines.
 */
async function tracedRun(
  replies: Reply[],
): Promise<{ code: number | null; stopReason?: string; traces: string[] }> {
  fixture.server.enqueue(...replies);
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
        const prompt = [{ type: "text", text: "What does notes.md say?" }];
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
  const code = await closed;
  const stopReason = protocol.find((message) => message.id === 3)?.result?.stopReason;
  return { code, ...(stopReason === undefined ? {} : { stopReason }), traces };
}

test("acp: Node's normalizeString is never marked for optimisation in a run of one prompt", async () => {
  // A first run in a fresh home: no code cache (test/support/test-home.ts).
  await coldCodeCache(fixture.home);
  const run = await tracedRun([{ text: "Done." }]);
  expect({ code: run.code, stopReason: run.stopReason }).toEqual({
    code: 0,
    stopReason: "end_turn",
  });
  expect(run.traces.filter((line) => line.includes("normalizeString"))).toEqual([]);
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

test("acp: a prompt answered with one view call (the benchmark's) marks nothing for optimisation", async () => {
  await writeFile(join(fixture.cwd, "notes.md"), "# Notes\n\nKeep the event log append-only.\n");
  const run = await tracedRun([
    { toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"notes.md"}' }] },
    { text: "The notes keep the log append-only." },
  ]);
  expect({
    code: run.code,
    stopReason: run.stopReason,
    marked: run.traces.filter((line) => line.startsWith("[marking")),
  }).toEqual({ code: 0, stopReason: "end_turn", marked: [] });
  // The view ran: the model read the file.
  const toolResult = chatMessages(fixture.server, 1).find((message) => message.role === "tool");
  expect(toolResult?.content).toContain("Keep the event log append-only.");
});
