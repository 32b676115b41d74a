import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Every Node process started with NODE_EXTRA_CA_CERTS set parses that certificate bundle before
// its first line (a machine-wide bundle: about 40-70 ms of CPU a process here, `node -e 0` 0.05 s
// of CPU without it and 0.11 s with it). The suite talks to local servers only (fake models, MCP
// servers, PostgreSQL, Chromium over its debugging pipe), so its workers and the children they
// start inherit an environment without it.
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Suites that drive turnloop as a child process (the CLI, tmux, the browser, the Copilot SDK over
 * the built CLI, bubblewrap, kill -9): each test spawns processes that compete for the cores, so
 * they run as a project of their own with a longer timeout. Every other file runs in-process.
 */
const PROCESS_SUITES = [
  "test/cli/**/*.test.ts",
  "test/mcp/**/*.test.ts",
  "test/sdk/**/*.test.ts",
  "test/acp/child-process.test.ts",
  "test/acp/huge-answer-memory.test.ts",
  "test/acp/interop.test.ts",
  "test/acp/mcp.test.ts",
  "test/acp/older-clients.test.ts",
  "test/server/framing.test.ts",
  "test/server/host.test.ts",
  "test/server/input-end.test.ts",
  "test/server/name-from-metadata.test.ts",
  "test/server/oversized-answers.test.ts",
  "test/server/plain-params.test.ts",
  "test/server/protocol.test.ts",
  "test/server/requests-during-resume.test.ts",
  "test/server/shutdown-full-disk.test.ts",
  "test/server/shutdown-reads-nothing.test.ts",
  "test/server/signal-while-stopping.test.ts",
  "test/session/crash.test.ts",
  "test/session/session-lock.test.ts",
  "test/session/single-writer.test.ts",
  "test/support-tests/shared-worker.test.ts",
  "test/tools/sandbox/**/*.test.ts",
];

/**
 * How many test files run at once: one per core (`os.availableParallelism()`), or
 * `TURNLOOP_TEST_WORKERS` when set (a whole number ≥ 1), to measure another count on the same
 * machine: `TURNLOOP_TEST_WORKERS=3 npm test`. vitest's own `--maxWorkers` flag does not reach the
 * projects below, which inherit this file's value (vitest 4.1 prefers a project's own;
 * bench/notes/suite39.md). @throws when the variable is set to anything else.
 */
function workerCount(): number {
  const asked = process.env.TURNLOOP_TEST_WORKERS;
  if (asked === undefined) {
    return availableParallelism();
  }
  const count = Number(asked);
  if (!Number.isInteger(count) || count < 1 || asked.trim() !== asked) {
    throw new Error(
      `TURNLOOP_TEST_WORKERS must be a whole number ≥ 1, not ${JSON.stringify(asked)}`,
    );
  }
  return count;
}

export default defineConfig({
  test: {
    // One worker per core: on a clean clone (CI's case: no vitest cache, files run largest first)
    // a third worker on 2 cores read 644.8 s of vitest against 607.6 s with two, though with the
    // cache's order (longest first) it read 562 s against 614 (bench/notes/suite39.md).
    maxWorkers: workerCount(),
    // `expect.poll` waits for what a loaded machine may take a while to show (a server's start).
    expect: { poll: { timeout: 10_000 } },
    // The hooks of the support modules' cleanups, for every file (test/support/cleanups.ts).
    setupFiles: ["test/support/each-file.ts"],
    // One PostgreSQL server for the run, started when a file first needs it; one warm code cache
    // for the test homes (test/support/test-home.ts), made when a file first makes a home.
    globalSetup: ["test/support/postgres-global.ts", "test/support/code-cache-global.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          include: ["test/**/*.test.ts"],
          exclude: PROCESS_SUITES,
          // The files of a worker share their modules: a fresh module graph per file cost each
          // file about 1.3 s of CPU (test/agent: 50 s of CPU isolated, 23 s shared).
          isolate: false,
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: PROCESS_SUITES,
          // The files of a worker share their modules here too: an isolated worker loaded vitest,
          // the support modules and what a file imports (the SDK, the ACP SDK, PostgreSQL's
          // client) again for every file, about 0.67 s of CPU a file (bench/notes/suite37.md: 42
          // files, 129.8 s of CPU isolated, 101.5 s shared). A file's fixture options do not reach
          // the next file (reset in test/support/each-file.ts, proven by
          // test/support-tests/shared-worker.test.ts); the whole project passed shared
          // (bench/notes/suite38.md), and no file left a child process or an active resource behind
          // but the bash tool's process-group reaper, one per worker by design
          // (src/tools/group-reaper.ts).
          isolate: false,
          testTimeout: 40_000,
          hookTimeout: 40_000,
        },
      },
    ],
  },
});
