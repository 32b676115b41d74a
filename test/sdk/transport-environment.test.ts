import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { SERVER_THREAD_POOL_SIZE, spawnServer } from "../../src/sdk/transport.js";

/**
 * A stand-in server that reports the thread pool it got: the number of threads of its process
 * once it has used the pool (libuv starts them all at once), and its `UV_THREADPOOL_SIZE`.
 */
const REPORTER = `import { readdirSync } from "node:fs";
import { stat } from "node:fs/promises";
await stat(".");
process.stderr.write(JSON.stringify({ variable: process.env.UV_THREADPOOL_SIZE ?? null, threads: readdirSync("/proc/self/task").length }));
`;

async function reportOf(env: NodeJS.ProcessEnv): Promise<{ variable: string; threads: number }> {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-transport-"));
  try {
    const cliPath = join(folder, "reporter.mjs");
    await writeFile(cliPath, REPORTER);
    let stderr = "";
    const transport = await spawnServer({
      cliPath,
      args: [],
      cwd: folder,
      env,
      onStderr: (text) => {
        stderr += text;
      },
    });
    await expect.poll(() => stderr.endsWith("}")).toBe(true);
    await transport.close(5_000);
    return JSON.parse(stderr) as { variable: string; threads: number };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

test.runIf(process.platform === "linux")(
  "the server the SDK starts gets a thread pool of 32 unless the app's environment sets one",
  async () => {
    const { UV_THREADPOOL_SIZE: _unset, ...inherited } = process.env;
    const given = await reportOf(inherited);
    const chosen = await reportOf({ ...inherited, UV_THREADPOOL_SIZE: "6" });
    expect(given.variable).toBe(String(SERVER_THREAD_POOL_SIZE));
    expect(chosen.variable).toBe("6");
    // The same process but for its pool: 32 threads against 6.
    expect(given.threads - chosen.threads).toBe(SERVER_THREAD_POOL_SIZE - 6);
  },
);
