import fs from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { randomUUID } from "../../src/events/random-id.js";
import type { Authorize, PermissionAnswer } from "../../src/permissions/permission-gate.js";
import { SessionHost } from "../../src/session/host.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import type { Session } from "../../src/session/session.js";
import type { CommandRequest } from "../../src/tools/command-runner.js";
import { builtinTools } from "../../src/tools/index.js";
import { defaultFaceOptions } from "../support/face-options.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";

/*
 * Permission mode `auto` asks before an edit of a file an MCP server of turnloop's config files
 * runs, or of the hooks folder git's config names (permissions/later-runs.ts). Two findings of
 * round 3, session 35, through a real session host and its real gate, in-process:
 * - the user's config files were looked for in this process's `TURNLOOP_HOME`
 *   (`process.env`), not in the host's home: a host given its home (the SDK server, ACP, tests)
 *   missed the servers of the user's `mcp.json`; and git's user config in this process's home
 *   folder, not in the `HOME` (and `XDG_CONFIG_HOME`) the sandbox reads it in;
 * - every decision about an edit read and parsed each config file again; a session now reads one
 *   again only when it changed (tools/sandbox/server-programs.ts `ServerConfigView`). Counted as
 *   files opened by Node's own `fs.openSync`, never by a time.
 * And of session 36: every sandboxed command read them all again too (the runner's own look for
 * the programs it keeps read-only); its commands now share the session's view with its gate.
 * `auto` needs a working sandbox: skipped (and said so) where bubblewrap cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

let root: string;
let home: string;
let project: string;
let host: SessionHost;
let session: Session;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "turnloop-later-run-")));
  home = join(root, "home");
  project = join(root, "project");
  await mkdir(home);
  await mkdir(join(project, ".git"), { recursive: true });
  await mkdir(join(project, "bin"));
  // The host's home, not this process's TURNLOOP_HOME (which names another folder or none).
  expect(process.env.TURNLOOP_HOME).not.toBe(home);
  host = new SessionHost({
    home,
    env: { PATH: process.env.PATH ?? "", HOME: root },
    config: resolveRunConfig({ ...defaultFaceOptions(project), permissionMode: "auto" }, {}),
  });
  session = await host.create(project, "openai-compatible:fake-model");
});

afterEach(async () => {
  await host.closeAll();
  await removeTree(root);
});

const edit = builtinTools().find((tool) => tool.name === "edit");

/** The gate's answer to an edit of `path` (relative to the project) by the model. */
function editOf(gate: Authorize, path: string): Promise<PermissionAnswer> {
  if (edit === undefined) {
    throw new Error("no edit tool");
  }
  const input = { path, old_str: "own", new_str: "evil" };
  const toolCall = { toolCallId: randomUUID(), name: "edit", arguments: input };
  const signal = new AbortController().signal;
  return gate({ tool: edit, input, toolCall, signal, start: () => undefined });
}

/** The session's gate under `auto`, refusing what it would ask about ("asked"). */
function gateOf(): Authorize {
  return host.permissionGate(session, { noAskReason: "asked" });
}

/** A model configuration for the session's settings; its provider is never called here. */
const FAKE_MODEL = {
  id: "openai-compatible:fake-model",
  provider: "openai-compatible",
  modelName: "fake-model",
  baseUrl: "http://127.0.0.1:9/v1",
} as const;

/** A face under `auto` that cannot ask. */
const FACE = { autopilot: false, noAskReason: "asked" } as const;

/** A request to run a command in `cwd` with `env`, as the bash tool makes one. */
function requestIn(cwd: string, env: Readonly<Record<string, string>>): CommandRequest {
  return {
    cwd,
    env,
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    savePath: join(root, "output.txt"),
    secrets: [],
  };
}

/** The MCP config files `fs.openSync` opened while `run` ran (Node's own function, counted). */
async function configReadsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const opened: string[] = [];
  const openSync = fs.openSync;
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    if (typeof path === "string" && /(^|\/)(\.mcp\.json|mcp\.json|config\.json)$/.test(path)) {
      opened.push(path);
    }
    return (openSync as (path: fs.PathLike, ...rest: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    fs.openSync = openSync;
    syncBuiltinESMExports();
  }
  return opened;
}

/**
 * Writes the project's `bin/a.js` and `bin/b.js`, its `.mcp.json` naming `bin/a.js` as server
 * `docs`, and the user's `mcp.json` with no server. @returns the `.mcp.json`'s path, and how to
 * add server `tools`, which runs `bin/b.js`, to it.
 */
async function projectServers(): Promise<{ mcp: string; addServer: () => Promise<void> }> {
  await writeFile(join(project, "bin", "a.js"), "// own\n");
  await writeFile(join(project, "bin", "b.js"), "// own\n");
  const servers = { docs: { command: "node", args: ["bin/a.js"] } };
  const mcp = join(project, ".mcp.json");
  await writeFile(mcp, JSON.stringify({ mcpServers: servers }));
  await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const more = { ...servers, tools: { command: "node", args: ["bin/b.js"] } };
  return { mcp, addServer: () => writeFile(mcp, JSON.stringify({ mcpServers: more })) };
}

describe.runIf(sandboxWorks)("auto and the files MCP servers run", () => {
  test("the user's mcp.json is read in the host's home, not in this process's TURNLOOP_HOME", async () => {
    const server = join(project, "bin", "server.js");
    await writeFile(server, "// the user's own server\n");
    await writeFile(join(project, "bin", "other.js"), "// no server's\n");
    const mine = { mine: { command: "node", args: [server] } };
    await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: mine }));
    const gate = gateOf();
    expect(await editOf(gate, "bin/server.js")).toEqual({ allowed: false, reason: "asked" });
    expect(await editOf(gate, "bin/other.js")).toMatchObject({ allowed: true });
  });

  test("the user's git config is read in the host's HOME, not in this process's", async () => {
    // `HOME` of the host's environment is `root`: its git config sends hooks to `githooks`.
    await writeFile(join(root, ".gitconfig"), "[core]\n\thooksPath = githooks\n");
    await mkdir(join(project, "githooks"));
    await writeFile(join(project, "githooks", "pre-commit"), "# own\n");
    await writeFile(join(project, "bin", "other.js"), "// own\n");
    const gate = gateOf();
    expect(await editOf(gate, "githooks/pre-commit")).toEqual({ allowed: false, reason: "asked" });
    expect(await editOf(gate, "bin/other.js")).toMatchObject({ allowed: true });
  });

  test("a config file is read once per session while it stays the same, and again once it changes", async () => {
    const { mcp, addServer } = await projectServers();
    const answers: PermissionAnswer[] = [];
    const first = await configReadsDuring(async () => {
      answers.push(await editOf(gateOf(), "bin/a.js"));
    });
    expect(first.sort()).toEqual([join(home, "mcp.json"), mcp].sort());
    // Three more decisions, the next prompt's gate among them: nothing opened again.
    const again = await configReadsDuring(async () => {
      answers.push(await editOf(gateOf(), "bin/b.js"));
      answers.push(await editOf(gateOf(), "bin/a.js"));
      answers.push(await editOf(gateOf(), "bin/b.js"));
    });
    expect(again).toEqual([]);
    // A server added to .mcp.json counts at the next decision: that file alone is read again.
    await addServer();
    const changed = await configReadsDuring(async () => {
      answers.push(await editOf(gateOf(), "bin/b.js"));
    });
    expect(changed).toEqual([mcp]);
    expect(answers.map((answer) => (answer.allowed ? "allowed" : answer.reason))).toEqual([
      "asked",
      "allowed",
      "asked",
      "allowed",
      "asked",
    ]);
  });

  test("the session's sandboxed commands read them through the same view as its decisions", async () => {
    const { mcp, addServer } = await projectServers();
    const outputs: string[] = [];
    const run = async (command: string) => {
      // Each prompt's settings, as a face makes them: the session's view lasts across them.
      const { commands } = host.agentSettings(session, FAKE_MODEL, FACE);
      const result = await commands.runner.run(command, requestIn(project, commands.env));
      outputs.push(`${result.exitCode}: ${result.output}${result.sandboxLimit ?? ""}`);
    };
    const first = await configReadsDuring(() => run("echo one"));
    expect(first.sort()).toEqual([join(home, "mcp.json"), mcp].sort());
    // Two more commands and a decision about an edit: nothing opened again.
    const again = await configReadsDuring(async () => {
      await run("echo two");
      expect(await editOf(gateOf(), "bin/a.js")).toEqual({ allowed: false, reason: "asked" });
      await run("echo three");
    });
    expect(again).toEqual([]);
    // A server added to .mcp.json: that file alone is read again, and its program is kept.
    await addServer();
    const changed = await configReadsDuring(() => run("echo evil >> bin/b.js"));
    expect(changed).toEqual([mcp]);
    const program = join(project, "bin", "b.js");
    expect(outputs).toEqual([
      "0: one\n",
      "0: two\n",
      "0: three\n",
      `1: bash: line 1: bin/b.js: Read-only file system\nthe sandbox keeps ${program} read-only whatever the settings: an MCP server config (.mcp.json, .turnloop/config.json, mcp.json) names it, and turnloop runs it when a session starts, outside the sandbox (Read-only file system)`,
    ]);
  });
});
