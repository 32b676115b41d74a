import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { ANSWER_TURN, TOOL_TURN } from "../support/event-sequences.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { livePids, stdioEntry, waitForLog } from "../support/mcp/servers.js";

let server: FakeModelServer;
let home: string;
let project: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-mcp-home-"));
  project = await mkdtemp(join(tmpdir(), "turnloop-mcp-project-"));
});

afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  return cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
  });
}

async function writeServers(path: string, servers: Record<string, unknown>): Promise<void> {
  await writeFile(path, JSON.stringify({ mcpServers: servers }));
}

function offered(request: number): string[] {
  const body = server.requests[request]?.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

/** The servers whose tools request `request` offered, sorted. */
function serversOffered(request: number): string[] {
  const servers = offered(request)
    .filter((name) => name.includes("__"))
    .map((name) => name.slice(0, name.indexOf("__")));
  return [...new Set(servers)].sort();
}

async function persistedTypes(stderr: string): Promise<string[]> {
  const sessionId = /session ([0-9a-f-]{36})/.exec(stderr)?.[1];
  const text = await readFile(
    join(home, "session-state", String(sessionId), "events.jsonl"),
    "utf8",
  );
  return text
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

describe("turnloop -p with MCP servers", () => {
  test("--mcp-config: the tool runs when allowed with mcp(...), every event is on disk, no server is left", async () => {
    const log = join(project, "server.log");
    const config = join(project, "servers.json");
    await writeServers(config, { t: stdioEntry("--log", log, "--grandchild") });
    server.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__echo", arguments: '{"text":"cli"}' }] },
      { text: "The server echoed." },
    );
    const result = await runCli(
      ["-p", "echo cli", "--mcp-config", config, "--allow-tool", "mcp(t__*)"],
      { cwd: project, env: environment() },
    );
    expect(result.stderr).not.toMatch(/failed/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("The server echoed.");
    expect(offered(0)).toContain("t__echo");
    expect(await persistedTypes(result.stderr)).toEqual([
      "session.start",
      "user.message",
      ...TOOL_TURN,
      ...ANSWER_TURN,
    ]);
    const entries = await waitForLog(log, (lines) =>
      lines.some((entry) => entry.called === "echo"),
    );
    expect(entries.some((entry) => typeof entry.grandchild === "number")).toBe(true);
    expect(livePids(log)).toEqual([]);
  });

  test("without a rule and without a terminal the call is denied; the model and the tool line get the whole hint with the MCP rule form", async () => {
    await writeServers(join(home, "mcp.json"), { t: stdioEntry() });
    server.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__echo", arguments: '{"text":"x"}' }] },
      { text: "ok" },
    );
    const result = await runCli(["-p", "echo"], { cwd: project, env: environment() });
    expect(result.code).toBe(0);
    const body = server.requests[1]?.body as
      | { messages: Array<{ role: string; content: string }> }
      | undefined;
    const messages = body?.messages ?? [];
    const reason =
      "Permission denied for 't__echo': no terminal to ask on; rerun with --allow-tool RULE (e.g. 'bash(npm *)', 'mcp(server)') or --allow-all-tools";
    expect(messages.at(-1)?.content).toBe(reason);
    // The tool line shows the hint whole, the MCP rule form included.
    expect(result.stderr).toContain(`✗ t__echo text=x`);
    expect(result.stderr).toContain(`: ${reason}\n`);
  });

  test("a project's .mcp.json runs only once the project is trusted; user and project files merge by name", async () => {
    await writeServers(join(home, "mcp.json"), {
      shared: stdioEntry(),
      personal: stdioEntry(),
    });
    await writeServers(join(project, ".mcp.json"), {
      shared: { command: "/nonexistent/program" },
      repo: stdioEntry(),
    });
    server.enqueue({ text: "one" }, { text: "two" });
    const untrusted = await runCli(["-p", "hi"], { cwd: project, env: environment() });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain("not starting the MCP servers of");
    expect(untrusted.stderr).toContain("(shared, repo)");
    expect(serversOffered(0)).toEqual(["personal", "shared"]);
    expect(offered(0)).not.toContain("repo__echo");

    const trust = await runCli(["mcp", "trust"], { cwd: project, env: environment() });
    expect(trust.code).toBe(0);
    const trusted = await runCli(["-p", "hi"], { cwd: project, env: environment() });
    expect(trusted.code).toBe(0);
    // The project's `shared` wins over the user's and fails to start: reported, the rest go on.
    expect(trusted.stderr).toMatch(/MCP server shared failed/);
    expect(serversOffered(1)).toEqual(["personal", "repo"]);
  });

  test("the config files' mcpServers join in (the project's only once trusted); turnloop config names each server's source", async () => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ mcpServers: { personal: { command: "user-program" } } }),
    );
    await mkdir(join(project, ".turnloop"));
    await writeServers(join(project, ".turnloop", "config.json"), {
      repo: { command: "project-program" },
    });
    await writeServers(join(project, "extra.json"), { extra: { url: "http://127.0.0.1:9/mcp" } });
    const projectConfig = join(project, ".turnloop", "config.json");
    const shown = await runCli(["config", "--mcp-config", "extra.json"], {
      cwd: project,
      env: environment(),
    });
    expect(shown.code).toBe(0);
    const rows = shown.stdout.split("\n").filter((line) => line.startsWith("mcpServers."));
    expect(rows).toEqual([
      `mcpServers.personal      {"type":"stdio","command":"user-program","args":[],"env":{}}    from ${join(home, "config.json")}`,
      `mcpServers.extra         {"type":"http","url":"http://127.0.0.1:9/mcp","headers":{}}    from ${join(project, "extra.json")}`,
      `mcpServers.repo          "(not run: project not trusted; see turnloop mcp trust)"    from ${projectConfig}`,
    ]);

    expect((await runCli(["mcp", "trust"], { cwd: project, env: environment() })).code).toBe(0);
    const trusted = await runCli(["config", "--json"], { cwd: project, env: environment() });
    const json = JSON.parse(trusted.stdout) as { mcpServers: Record<string, { source: string }> };
    expect(json.mcpServers.repo?.source).toBe(projectConfig);
    expect(json.mcpServers.personal?.source).toBe(join(home, "config.json"));
  });

  test("turnloop mcp list shows each server's transport, state and tool count", async () => {
    await writeServers(join(home, "mcp.json"), {
      good: { ...stdioEntry(), tools: ["echo", "image"] },
      broken: { command: "/nonexistent/program" },
    });
    await writeServers(join(project, ".mcp.json"), { repo: stdioEntry() });
    const listed = await runCli(["mcp", "list"], { cwd: project, env: environment() });
    expect(listed.code).toBe(1);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0]).toBe("good  stdio  connected  2 tools");
    expect(lines[1]).toMatch(/^broken {2}stdio {2}failed {2}0 tools {2}.*ENOENT/);
    expect(lines[2]).toBe("repo  project  untrusted  0 tools");
    expect(lines).toHaveLength(3);
  });
});
