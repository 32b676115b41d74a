/**
 * One warm code cache for a whole vitest run (vitest.config.ts `globalSetup`), linked into every
 * test home that test/support/test-home.ts makes: without it, the first CLI run in each fresh
 * home compiled all of turnloop's scripts (src/cli/code-cache.cts; about 0.15 s of CPU a start).
 *
 * Nothing is made until a test file asks: the set-up serves a loopback HTTP address (handed to the
 * test files as `inject("codeCacheService")`) whose first request makes the template, a temporary
 * home where the run's own built CLI (`dist/`, test/support/cli.ts `CLI_PATH`) answered once with
 * `-p` (after one call of each common built-in tool) and once over `acp` (initialize,
 * session/new, session/prompt) against a fake model; each
 * later request gets the same. Every request answers (status 200) `{"template": "<home>"}`, or
 * `{"template": null, "reason": "…"}` when none could be made (no `dist/`, a CLI that failed):
 * homes are then cold, as before, and the reason is printed once. The template is removed when the
 * run ends.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { TestProject } from "vitest/node";
import { CLI_PATH, cleanEnvironment, outputOf, runCli } from "./cli.js";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";
import { removeTree } from "./remove-tree.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>/`: answers the template's home (see above). */
    codeCacheService: string;
  }
}

/** What the service answers: the template's home, or why there is none. */
export type CodeCacheTemplate = { template: string } | { template: null; reason: string };

/**
 * The run's service and template (made by the first request). Each project loads this module
 * anew, so they live on `globalThis` for the projects to share one.
 */
const shared = globalThis as {
  turnloopCodeCacheService?: Promise<string>;
  turnloopCodeCacheTemplate?: Promise<CodeCacheTemplate>;
};

/** Serves the template on a free loopback port; resolves to `http://127.0.0.1:<port>/`. */
function serve(): Promise<string> {
  const http = createServer((_request, response) => {
    shared.turnloopCodeCacheTemplate ??= makeTemplate();
    void shared.turnloopCodeCacheTemplate.then((template) =>
      response.writeHead(200).end(JSON.stringify(template)),
    );
  });
  return new Promise((resolve) => {
    http.listen(0, "127.0.0.1", () => {
      http.unref();
      resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
    });
  });
}

/** One call of each built-in tool the suite's CLI runs call most, in the template's `-p` run. */
const TEMPLATE_TOOL_CALLS = [
  { id: "view", name: "view", arguments: JSON.stringify({ path: "notes.md" }) },
  { id: "bash", name: "bash", arguments: JSON.stringify({ command: "echo done" }) },
  { id: "grep", name: "grep", arguments: JSON.stringify({ pattern: "one" }) },
  { id: "glob", name: "glob", arguments: JSON.stringify({ pattern: "*.md" }) },
  {
    id: "create",
    name: "create",
    arguments: JSON.stringify({ path: "made.md", file_text: "made\n" }),
  },
  {
    id: "edit",
    name: "edit",
    arguments: JSON.stringify({ path: "notes.md", old_str: "two", new_str: "three" }),
  },
];

/**
 * A home whose `cache/code` holds the caches of a `-p` run calling tools and of an `acp` turn, or
 * why not.
 */
async function makeTemplate(): Promise<CodeCacheTemplate> {
  if (!existsSync(CLI_PATH)) {
    return { template: null, reason: `${CLI_PATH} is missing` };
  }
  const home = await mkdtemp(join(tmpdir(), "turnloop-code-cache-template-"));
  const cwd = join(home, "work");
  await mkdir(cwd);
  const model = await startFakeModelServer();
  try {
    const environment = cleanEnvironment({
      HOME: home,
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${model.url}/v1`,
    });
    // `-p` first, as most CLI runs of the suite are, calling the built-in tools most of them call
    // (their scripts cached too: a run that writes a new script's cache writes again every cache
    // it took, src/cli/code-cache.cts); the `acp` turn, which loads scripts of its own, then
    // writes again the caches it took, with what it compiled in them besides.
    await writeFile(join(cwd, "notes.md"), "one\ntwo\n");
    model.enqueue({ toolCalls: TEMPLATE_TOOL_CALLS }, { text: "done" });
    const printed = await runCli(["-p", "say done", "--allow-all-tools"], {
      cwd,
      env: environment,
    });
    if (printed.code !== 0) {
      throw new Error(`-p exited ${printed.code}: ${printed.stderr}`);
    }
    await acpTurn(model, cwd, environment);
    return { template: home };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`test/support/code-cache-global.ts: test homes stay cold: ${reason}\n`);
    await removeTree(home);
    return { template: null, reason };
  } finally {
    await model.close();
  }
}

/** `turnloop acp`: initialize, session/new, one prompt answered "done"; then its stdin closes. */
async function acpTurn(
  model: FakeModelServer,
  cwd: string,
  environment: NodeJS.ProcessEnv,
): Promise<void> {
  model.enqueue({ text: "done" });
  const child = spawn(process.execPath, [CLI_PATH, "acp"], { cwd, env: environment });
  const ended = outputOf(child);
  const send = (id: number, method: string, params: object) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  send(2, "session/new", { cwd, mcpServers: [] });
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { id?: number; result?: { sessionId?: string } };
    if (message.id === 2 && message.result?.sessionId !== undefined) {
      const prompt = [{ type: "text", text: "say done" }];
      send(3, "session/prompt", { sessionId: message.result.sessionId, prompt });
    } else if (message.id !== undefined && message.id >= 2) {
      // The prompt's answer, or an error answer to session/new.
      child.stdin.end();
      break;
    }
  }
  const { code, stderr } = await ended;
  if (code !== 0) {
    throw new Error(`acp exited ${code}: ${stderr}`);
  }
}

/** Hands the service's address to the project's test files; removes the template after the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.turnloopCodeCacheService ??= serve();
  project.provide("codeCacheService", await shared.turnloopCodeCacheService);
  return async () => {
    const made = await shared.turnloopCodeCacheTemplate;
    shared.turnloopCodeCacheTemplate = undefined;
    if (made?.template) {
      await removeTree(made.template);
    }
  };
}
