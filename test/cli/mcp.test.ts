import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ANSWER_TURN, TOOL_TURN } from "../support/event-sequences.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { livePids, stdioEntry, waitForLog } from "../support/mcp/servers.js";

async function writeServers(path: string, servers: Record<string, unknown>): Promise<void> {
  await writeFile(path, JSON.stringify({ mcpServers: servers }));
}

function offered(model: FakeModelServer, request: number): string[] {
  const body = model.requests[request]?.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

/** The servers whose tools request `request` offered, sorted. */
function serversOffered(model: FakeModelServer, request: number): string[] {
  const servers = offered(model, request)
    .filter((name) => name.includes("__"))
    .map((name) => name.slice(0, name.indexOf("__")));
  return [...new Set(servers)].sort();
}

describe("turnloop -p with MCP servers", () => {
  test("--mcp-config: the tool runs when allowed with mcp(...), every event is on disk, no server is left", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const log = join(repository, "server.log");
    const config = join(repository, "servers.json");
    await writeServers(config, { t: stdioEntry("--log", log, "--grandchild") });
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__echo", arguments: '{"text":"cli"}' }] },
      { text: "The server echoed." },
    );
    const result = await cli([
      "-p",
      "echo cli",
      "--mcp-config",
      config,
      "--allow-tool",
      "mcp(t__*)",
    ]);
    expect(result.stderr).not.toMatch(/failed/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("The server echoed.");
    expect(offered(model, 0)).toContain("t__echo");
    expect(
      (await loggedEvents(printedSessionId(result.stderr))).map((event) => event.type),
    ).toEqual(["session.start", "user.message", ...TOOL_TURN, ...ANSWER_TURN]);
    const entries = await waitForLog(log, (lines) =>
      lines.some((entry) => entry.called === "echo"),
    );
    expect(entries.some((entry) => typeof entry.grandchild === "number")).toBe(true);
    expect(livePids(log)).toEqual([]);
  });

  test("without a rule and without a terminal the call is denied; the model and the tool line get the whole hint with the MCP rule form", async ({
    cli,
    model,
    home,
  }) => {
    await writeServers(join(home, "mcp.json"), { t: stdioEntry() });
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__echo", arguments: '{"text":"x"}' }] },
      { text: "ok" },
    );
    const result = await cli(["-p", "echo"]);
    expect(result.code).toBe(0);
    const body = model.requests[1]?.body as
      | { messages: Array<{ role: string; content: string }> }
      | undefined;
    const messages = body?.messages ?? [];
    const reason =
      "Permission denied for 't__echo': no terminal to ask on; rerun with --allow-tool 'mcp(t)' or --allow-all-tools";
    expect(messages.at(-1)?.content).toBe(reason);
    // The tool line shows the hint whole, the MCP rule form included.
    expect(result.stderr).toContain(`✗ t__echo text=x`);
    expect(result.stderr).toContain(`: ${reason}\n`);
  });

  test("a project's .mcp.json runs only once the project is trusted; user and project files merge by name", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    await writeServers(join(home, "mcp.json"), {
      shared: stdioEntry(),
      personal: stdioEntry(),
    });
    await writeServers(join(repository, ".mcp.json"), {
      shared: { command: "/nonexistent/program" },
      repo: stdioEntry(),
    });
    model.enqueue({ text: "one" }, { text: "two" });
    const untrusted = await cli(["-p", "hi"]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr.split("\n")).toContain(
      `turnloop: warning: not starting the MCP servers of ${join(repository, ".mcp.json")} (shared, repo): this project is not trusted; run \`turnloop mcp trust\` in it to allow them`,
    );
    expect(serversOffered(model, 0)).toEqual(["personal", "shared"]);
    expect(offered(model, 0)).not.toContain("repo__echo");

    const trust = await cli(["mcp", "trust"]);
    expect(trust.code).toBe(0);
    const trusted = await cli(["-p", "hi"]);
    expect(trusted.code).toBe(0);
    // The project's `shared` wins over the user's and fails to start: reported, the rest go on.
    expect(trusted.stderr).toMatch(/MCP server shared failed/);
    expect(serversOffered(model, 1)).toEqual(["personal", "repo"]);
  });

  // A trial of session 23's build (round 3, session 24, #8): a trust could not be taken back but
  // by editing trusted-projects.json, the warning after a change did not say what changed, and
  // `mcp --help` printed the whole help.
  test("mcp untrust takes a trust back; a changed .mcp.json is named in the warning; mcp --help is mcp's usage", async ({
    cli,
    repository,
  }) => {
    const file = join(repository, ".mcp.json");
    await writeServers(file, { repo: stdioEntry() });
    expect((await cli(["mcp", "trust"])).code).toBe(0);
    await writeServers(file, { repo: stdioEntry(), extra: stdioEntry() });
    const changed = await cli(["mcp", "list"]);
    expect(changed.stderr.split("\n")).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^turnloop: warning: not starting the MCP servers of ${file} \\(repo, extra\\): \\.mcp\\.json changed since this project was trusted on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC; run \`turnloop mcp trust\` in it to allow them$`,
        ),
      ),
    );
    expect((await cli(["mcp", "trust"])).code).toBe(0);
    expect(await cli(["mcp", "untrust"])).toMatchObject({
      code: 0,
      stdout: `Untrusted ${repository}: its .mcp.json servers no longer run and the keys of its .turnloop/config.json that loosen permissions, send data elsewhere or change what a run may spend are held again.\n`,
      stderr: "",
    });
    const untrusted = await cli(["mcp", "list"]);
    expect(untrusted.stderr).toContain(
      `turnloop: warning: not starting the MCP servers of ${file} (repo, extra): this project is not trusted; run \`turnloop mcp trust\` in it to allow them`,
    );
    expect(await cli(["mcp", "untrust"])).toMatchObject({
      code: 0,
      stdout: `${repository} was not trusted: nothing to take back.\n`,
    });
    const help = await cli(["mcp", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.match(/^ {2}turnloop \S+ \S+/gm)).toEqual([
      "  turnloop mcp list",
      "  turnloop mcp trust",
      "  turnloop mcp untrust",
    ]);
    expect(help.stdout).toMatch(/\nEvery command: turnloop --help\n$/);
  });

  test("the config files' mcpServers join in (the project's only once trusted); turnloop config names each server's source", async ({
    cli,
    home,
    repository,
  }) => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ mcpServers: { personal: { command: "user-program" } } }),
    );
    await mkdir(join(repository, ".turnloop"));
    await writeServers(join(repository, ".turnloop", "config.json"), {
      repo: { command: "project-program" },
    });
    await writeServers(join(repository, "extra.json"), {
      extra: { url: "http://127.0.0.1:9/mcp" },
    });
    const projectConfig = join(repository, ".turnloop", "config.json");
    const shown = await cli(["config", "--mcp-config", "extra.json"]);
    expect(shown.code).toBe(0);
    const rows = shown.stdout.split("\n").filter((line) => line.startsWith("mcpServers."));
    expect(rows).toEqual([
      `mcpServers.personal      {"type":"stdio","command":"user-program","args":[],"env":{}}    from ${join(home, "config.json")}`,
      `mcpServers.extra         {"type":"http","url":"http://127.0.0.1:9/mcp","headers":{}}    from ${join(repository, "extra.json")}`,
      `mcpServers.repo          (not run: this project is not trusted; see turnloop mcp trust)    from ${projectConfig}`,
    ]);

    expect((await cli(["mcp", "trust"])).code).toBe(0);
    const trusted = await cli(["config", "--json"]);
    const json = JSON.parse(trusted.stdout) as { mcpServers: Record<string, { source: string }> };
    expect(json.mcpServers.repo?.source).toBe(projectConfig);
    expect(json.mcpServers.personal?.source).toBe(join(home, "config.json"));
  });

  test("turnloop mcp list shows each server's transport, state and tool count", async ({
    cli,
    home,
    repository,
  }) => {
    await writeServers(join(home, "mcp.json"), {
      good: { ...stdioEntry(), tools: ["echo", "image"] },
      broken: { command: "/nonexistent/program" },
    });
    await writeServers(join(repository, ".mcp.json"), { repo: stdioEntry() });
    const listed = await cli(["mcp", "list"]);
    expect(listed.code).toBe(1);
    const lines = listed.stdout.trim().split("\n");
    // Aligned columns (trial 38 F9: two spaces between fields, so they drifted with the name).
    expect(lines).toEqual([
      "good    stdio    connected  2 tools",
      "broken  stdio    failed     0 tools  command not found: /nonexistent/program",
      "repo    project  untrusted  0 tools",
    ]);
  });

  test("an --mcp-config file that is not there stops -p (also with -q) and mcp list with exit 64", async ({
    cli,
    model,
    repository,
  }) => {
    const missing = join(repository, "missing-servers.json");
    for (const quiet of [[], ["-q"]]) {
      const run = await cli(["-p", "hello", ...quiet, "--mcp-config", "missing-servers.json"]);
      expect(run).toEqual({
        code: 64,
        signal: null,
        stdout: "",
        stderr: `turnloop: ${missing}: no such file\n`,
      });
    }
    expect(model.requests).toHaveLength(0);
    const listed = await cli(["mcp", "list", "--mcp-config", "missing-servers.json"]);
    expect(listed).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${missing}: no such file\n`,
    });
  });
});
