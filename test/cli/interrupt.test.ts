import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";

let server: FakeModelServer;
let home: string;
let repository: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-interrupt-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-interrupt-repo-"));
  execFileSync("git", ["init", "-q"], { cwd: repository });
});

afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

/** Whether `pid` is a running process (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

test("a second Ctrl-C kills a command that ignores SIGTERM, and prints the session id", async () => {
  // bash and its sleep ignore SIGTERM; their pids are written for the test to check.
  const command = `trap "" TERM; sleep 60 & echo $! > sleep.pid; echo $$ > bash.pid; wait`;
  server.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const result = await runCli(["-p", "wait", "--allow-all-tools"], {
    cwd: repository,
    env: cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    }),
    onStart: (child) => {
      const poll = setInterval(() => {
        if (existsSync(join(repository, "bash.pid"))) {
          clearInterval(poll);
          child.kill("SIGINT");
          setTimeout(() => child.kill("SIGINT"), 200);
        }
      }, 20);
    },
  });
  expect(result.code).toBe(130);
  expect(result.stderr).toMatch(/turnloop: stopped; resume with --resume [0-9a-f-]{36}\n$/);
  const pids = await Promise.all(
    ["bash.pid", "sleep.pid"].map(async (name) =>
      Number(await readFile(join(repository, name), "utf8")),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(pids.filter(running)).toEqual([]);
});
