import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { CLI_PATH, cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";

/**
 * Issue 26: nothing is loaded before it is needed. The built CLI runs with a recorder of every
 * module it loads (test/support/module-recorder.mjs); the modules loaded by the time the first
 * model request arrives (`-p`) or the `initialize` answer is written (`acp`) are checked by name
 * and by count. Counts, never times.
 */

const RECORDER = fileURLToPath(new URL("../support/module-recorder.mjs", import.meta.url));
/** Packages that only some runs need: the MCP client, the price catalogue, the PostgreSQL client. */
const NOT_BEFORE_NEEDED =
  /@modelcontextprotocol|@pydantic\/genai-prices|\/node_modules\/pg(-[a-z]+)?\//;
/**
 * Unique modules up to the first request of `-p`: 230 on 2026-12-01 once the store port, the fold
 * and the run config landed as modules of their own (about 110 of them zod's and the AI SDK's),
 * with room for a few small modules of our own; a static import of a package (the MCP client
 * alone was 17 modules) goes past it.
 */
const PROMPT_MODULE_BOUND = 240;
/** Unique modules when `acp` answers `initialize`: 238 on 2026-12-01, with the same room. */
const ACP_INITIALIZE_MODULE_BOUND = 248;

let server: FakeModelServer;
let home: string;
let directory: string;
let moduleLog: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-modules-home-"));
  directory = await mkdtemp(join(tmpdir(), "turnloop-modules-cwd-"));
  moduleLog = join(home, "modules.log");
});

afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(directory, { recursive: true, force: true });
});

/** The unique module URLs recorded so far. */
function modulesLoaded(): string[] {
  let text = "";
  try {
    text = readFileSync(moduleLog, "utf8");
  } catch {
    // Nothing loaded yet.
  }
  return [...new Set(text.split("\n").filter((line) => line !== ""))];
}

function environment(model: string): NodeJS.ProcessEnv {
  return cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: model,
    TURNLOOP_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: "test-key",
    NODE_OPTIONS: `--import=${RECORDER}`,
    TURNLOOP_TEST_MODULE_LOG: moduleLog,
  });
}

describe("modules loaded before they are needed (issue 26)", () => {
  test("-p with no MCP server and a common model: neither the MCP client nor the price catalogue before the first request", async () => {
    const atRequests: string[][] = [];
    server.setResponder(() => {
      atRequests.push(modulesLoaded());
      return { text: "All done.", usage: { input: 100, output: 10 } };
    });
    const result = await runCli(["-p", "say done"], {
      cwd: directory,
      env: environment("openai-chat:gpt-4.1"),
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: "All done.\n",
    });
    const [first] = atRequests;
    expect(atRequests).toHaveLength(1);
    expect(first?.filter((url) => NOT_BEFORE_NEEDED.test(url))).toEqual([]);
    expect(first?.length).toBeLessThanOrEqual(PROMPT_MODULE_BOUND);
    // The reply's usage was priced, so the catalogue was loaded after the request, and the
    // recorder saw it (its CommonJS build, through require): the check above can fail.
    expect(modulesLoaded().filter((url) => url.includes("@pydantic/genai-prices"))).toEqual([
      expect.stringMatching(/genai-prices\/dist\/index\.cjs$/),
    ]);
  });

  test("acp answers initialize with neither the MCP client nor the price catalogue loaded", async () => {
    const agent = spawn(process.execPath, [CLI_PATH, "acp"], {
      cwd: directory,
      env: environment("openai-chat:gpt-4.1"),
    });
    const closed = new Promise((resolve) => agent.once("close", resolve));
    try {
      const answer = await firstLine(agent);
      const atAnswer = modulesLoaded();
      expect(JSON.parse(answer)).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        result: { protocolVersion: 1 },
      });
      expect(atAnswer.filter((url) => NOT_BEFORE_NEEDED.test(url))).toEqual([]);
      expect(atAnswer.length).toBeLessThanOrEqual(ACP_INITIALIZE_MODULE_BOUND);
    } finally {
      // stdin ending closes the connection; the agent exits.
      agent.stdin.end();
      await closed;
    }
  });
});

/** Sends `initialize` and resolves with the first line the agent writes to stdout. */
function firstLine(agent: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    agent.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end >= 0) {
        resolve(stdout.slice(0, end));
      }
    });
    agent.on("error", reject);
    agent.on("close", (code) => reject(new Error(`the agent exited (${code}) before answering`)));
    const initialize = { protocolVersion: 1, clientCapabilities: {} };
    agent.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`,
    );
  });
}
