import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { CLI_PATH, type CliResult, cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { chatMessages } from "../support/harness.js";

/** Largest file the CLI may write, in KiB (bash `ulimit -f` counts 1024-byte blocks). */
const FILE_SIZE_LIMIT_KIB = 3;

let server: FakeModelServer;
let home: string;
let repository: string;

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-full-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-full-repo-"));
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

const environment = () =>
  cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
  });

/**
 * `turnloop -p` in a real child process whose files may not grow past the limit: a write that
 * would fails with EFBIG, as a full disk fails with ENOSPC (Node ignores SIGXFSZ).
 */
function runWithFileSizeLimit(args: readonly string[]): Promise<CliResult> {
  const quoted = [CLI_PATH, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(
      "bash",
      ["-c", `ulimit -f ${FILE_SIZE_LIMIT_KIB} && exec '${process.execPath}' ${quoted}`],
      { cwd: repository, env: environment(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

test("a log that cannot grow ends the prompt with session.error and an error exit, and keeps every written event", async () => {
  server.enqueue(
    {
      text: "Printing.",
      toolCalls: [
        {
          id: "call_big",
          name: "bash",
          // Its result (6000 bytes) cannot fit in the log any more.
          arguments: JSON.stringify({ command: "head -c 6000 /dev/zero | tr '\\0' a" }),
        },
      ],
    },
    { text: "never requested" },
  );
  const result = await runWithFileSizeLimit(["-p", "print a lot", "--allow-all-tools"]);
  expect(result.signal).toBe(null);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/events\.jsonl could not be written \(EFBIG/);
  // The model was asked once: the prompt stopped at the failed write.
  expect(server.requests).toHaveLength(1);

  const [sessionId] = await readdir(join(home, "session-state"));
  const path = join(home, "session-state", String(sessionId), "events.jsonl");
  expect((await stat(path)).size).toBeLessThanOrEqual(FILE_SIZE_LIMIT_KIB * 1024);
  const log = await readEventLog(path);
  // No torn or half-written line, and everything up to the tool's start is there. The turn
  // stays open: its turn_end would follow the tool's result, which could not be written.
  expect(log.repaired).toEqual([]);
  expect(log.events.map((event) => event.type)).toEqual([
    "session.start",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.usage",
    "tool.execution_start",
    "session.error",
  ]);

  // Resumed without the limit, the open call gets its interrupted result and the model a valid history.
  server.enqueue({ text: "Resumed." });
  const resumed = await runCli(["-p", "go on", "--resume", String(sessionId)], {
    cwd: repository,
    env: environment(),
  });
  expect(resumed.code, resumed.stderr).toBe(0);
  const messages = chatMessages(server, -1);
  expect(messages.map((message) => message.role)).toEqual([
    "system",
    "user",
    "assistant",
    "tool",
    "user",
  ]);
  expect(String(messages[3]?.content)).toMatch(/^Interrupted/);
});
