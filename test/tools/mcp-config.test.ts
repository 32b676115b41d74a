import { createHook } from "node:async_hooks";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parseRule, rulesCover, ruleTouches } from "../../src/permissions/permission-rules.js";
import { gatherMcpServers, isProjectTrusted, trustProject } from "../../src/session/mcp-servers.js";
import { parseServers, readServersFile } from "../../src/tools/mcp/config.js";
import { qualifiedToolName } from "../../src/tools/mcp/tools.js";

let home: string;
let project: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "turnloop-mcp-config-home-"));
  project = await mkdtemp(join(tmpdir(), "turnloop-mcp-config-project-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

describe("MCP server configs", () => {
  test("Claude Code, Copilot SDK and ACP shapes normalise to one form; bad entries are named, not fatal", () => {
    const parsed = parseServers(
      {
        claude: { command: "npx", args: ["-y", "srv"], env: { TOKEN: "t" } },
        copilot: {
          type: "local",
          command: "srv",
          workingDirectory: "/w",
          tools: ["a"],
          timeout: 500,
        },
        acp: { name: "acp", command: "srv", args: [], env: [{ name: "K", value: "v" }] },
        remote: { type: "http", url: "https://example.test/mcp", headers: { A: "b" } },
        acpRemote: {
          type: "sse",
          url: "http://127.0.0.1:1/sse",
          headers: [{ name: "A", value: "c" }],
        },
        bare: { url: "http://127.0.0.1:2/mcp" },
        nothing: {},
        badUrl: { url: "ftp://x" },
        badArgs: { command: "x", args: "not a list" },
      },
      "mcp.json",
    );
    expect(parsed.servers).toEqual({
      claude: { type: "stdio", command: "npx", args: ["-y", "srv"], env: { TOKEN: "t" } },
      copilot: {
        type: "stdio",
        command: "srv",
        args: [],
        env: {},
        cwd: "/w",
        tools: ["a"],
        timeoutMs: 500,
      },
      acp: { type: "stdio", command: "srv", args: [], env: { K: "v" } },
      remote: { type: "http", url: "https://example.test/mcp", headers: { A: "b" } },
      acpRemote: { type: "sse", url: "http://127.0.0.1:1/sse", headers: { A: "c" } },
      bare: { type: "http", url: "http://127.0.0.1:2/mcp", headers: {} },
    });
    expect(parsed.problems).toEqual([
      'mcp.json: server "nothing": needs "command" (stdio) or "url" (http, sse)',
      expect.stringMatching(/^mcp\.json: server "badUrl": /),
      expect.stringMatching(/^mcp\.json: server "badArgs": .*args/),
    ]);
  });

  test("sources merge by name, later winning: user file < config.json < trusted project (.mcp.json < .turnloop/config.json) < --mcp-config < face", async () => {
    const write = (path: string, servers: object) =>
      writeFile(path, JSON.stringify({ mcpServers: servers }));
    await write(join(home, "mcp.json"), { a: { command: "user" }, b: { command: "user" } });
    await write(join(home, "config.json"), {
      b: { command: "settings" },
      c: { command: "settings" },
    });
    await write(join(project, ".mcp.json"), {
      c: { command: "project" },
      d: { command: "project" },
    });
    await mkdir(join(project, ".turnloop"));
    await write(join(project, ".turnloop", "config.json"), {
      c: { command: "project-config" },
      f: { command: "project-config" },
    });
    await write(join(project, "extra.json"), { d: { command: "flag" } });
    await writeFile(join(project, "broken.json"), "{not json");
    const sources = {
      home,
      cwd: project,
      configFiles: ["extra.json", "broken.json", "missing.json"],
      face: { e: { type: "stdio" as const, command: "face", args: [], env: {} } },
    };
    const untrusted = await gatherMcpServers(sources);
    const commands = (servers: typeof untrusted.servers) =>
      Object.fromEntries(
        Object.entries(servers).map(([name, config]) => [
          name,
          "command" in config ? config.command : config.url,
        ]),
      );
    expect(commands(untrusted.servers)).toEqual({
      a: "user",
      b: "settings",
      c: "settings",
      d: "flag",
      e: "face",
    });
    expect(untrusted.untrustedProject).toMatchObject({
      path: `${join(project, ".mcp.json")} and ${join(project, ".turnloop", "config.json")}`,
      names: ["c", "d", "f"],
    });
    // Each with its config, for the trust question to show (session/trust-lines.ts).
    expect(commands(untrusted.untrustedProject?.servers ?? {})).toEqual({
      c: "project-config",
      d: "project",
      f: "project-config",
    });
    expect(untrusted.sources).toEqual({
      a: join(home, "mcp.json"),
      b: join(home, "config.json"),
      c: join(home, "config.json"),
      d: join(project, "extra.json"),
      e: "the client",
    });
    // A file named by --mcp-config that is not there is a problem; a missing usual file is not.
    expect(untrusted.problems).toEqual([
      expect.stringMatching(/broken\.json is not valid JSON: line \d+, column \d+: /),
      `${join(project, "missing.json")}: no such file`,
    ]);

    expect(await isProjectTrusted(home, project)).toBe(false);
    await trustProject(home, project);
    expect(await isProjectTrusted(home, project)).toBe(true);
    expect((await stat(join(home, "trusted-projects.json"))).mode & 0o777).toBe(0o600);
    const trusted = await gatherMcpServers(sources);
    expect(commands(trusted.servers)).toEqual({
      a: "user",
      b: "settings",
      c: "project-config",
      d: "flag",
      e: "face",
      f: "project-config",
    });
    expect(trusted.sources).toMatchObject({
      c: join(project, ".turnloop", "config.json"),
      f: join(project, ".turnloop", "config.json"),
    });
    expect(trusted.untrustedProject).toBeUndefined();
  });

  test("tool names: <server>__<tool>, provider-safe, at most 64 characters and still unique", () => {
    expect(qualifiedToolName("github", "create_issue")).toBe("github__create_issue");
    expect(qualifiedToolName("My Server", "do.thing")).toBe("My_Server__do_thing");
    const long = qualifiedToolName("s".repeat(40), "t".repeat(40));
    expect(long).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(long).not.toBe(qualifiedToolName("s".repeat(40), `${"t".repeat(39)}u`));
  });

  test("mcp(...) rules match MCP tools by server, by server and tool, or by the tool's usual name, never built-in tools", () => {
    const subject = {
      toolName: "github__create_issue",
      paths: [],
      mcpServerName: "github",
      mcpToolName: "create_issue",
    };
    const covers = (rule: string, target: typeof subject | { toolName: string; paths: string[] }) =>
      rulesCover([parseRule(rule)], target, "/cwd");
    expect(covers("mcp", subject)).toBe(true);
    expect(covers("mcp(github)", subject)).toBe(true);
    expect(covers("mcp(github__*)", subject)).toBe(true);
    expect(covers("mcp(github__create_issue)", subject)).toBe(true);
    expect(covers("github__create_issue", subject)).toBe(true);
    expect(covers('mcp("github":"create_issue")', subject)).toBe(true);
    expect(covers('mcp("github":"create_pr")', subject)).toBe(false);
    expect(covers('mcp("git":"hub__create_issue")', subject)).toBe(false);
    expect(covers("mcp(git)", subject)).toBe(false);
    expect(covers("mcp(gitlab__*)", subject)).toBe(false);
    expect(covers("mcp(*)", { toolName: "bash", paths: [] })).toBe(false);
    expect(ruleTouches(parseRule("mcp(github)"), subject, "/cwd")).toBe(true);
    expect(
      ruleTouches(parseRule("mcp(github)"), { toolName: "view", paths: ["/cwd/a"] }, "/cwd"),
    ).toBe(false);
  });
});

/** The kinds of asynchronous resources `work` starts (`FSREQPROMISE`: a `node:fs/promises` call). */
async function resourcesStarted(work: () => Promise<unknown>): Promise<string[]> {
  const started: string[] = [];
  const hook = createHook({
    init: (_id, type) => {
      started.push(type);
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return started;
}

describe("the usual MCP config files, mostly absent (issue 26, figure 1a)", () => {
  test("a missing file is found without a file read: no fs/promises call, and the same answer", async () => {
    const missing = join(project, ".mcp.json");
    let answer: unknown;
    const started = await resourcesStarted(async () => {
      answer = await readServersFile(missing);
    });
    expect(started.filter((type) => type.startsWith("FSREQ"))).toEqual([]);
    expect(answer).toEqual({ servers: {}, problems: [] });
    expect(await readServersFile(missing, { named: true })).toEqual({
      servers: {},
      problems: [`${missing}: no such file`],
    });
    // Below a file, as below a missing folder: the same "no such file" as before.
    await writeFile(join(project, "file"), "x");
    const belowFile = join(project, "file", "mcp.json");
    expect(await readServersFile(belowFile, { named: true })).toEqual({
      servers: {},
      problems: [`${belowFile}: no such file`],
    });
  });

  test("a file that is there is read as before", async () => {
    const path = join(project, ".mcp.json");
    await writeFile(path, JSON.stringify({ mcpServers: { local: { command: "srv" } } }));
    const started = await resourcesStarted(() => readServersFile(path));
    // Read by the one reader of project files (src/tools/project-file.ts): opened without
    // waiting, judged by `fstat`, at most 1 MiB, on the calling thread, so no request of Node's.
    expect(started.filter((type) => type.startsWith("FSREQ"))).toEqual([]);
    expect(await readServersFile(path)).toMatchObject({
      servers: { local: { command: "srv" } },
      problems: [],
    });
    await mkdir(join(project, "folder.json"));
    expect((await readServersFile(join(project, "folder.json"))).problems).toHaveLength(1);
  });
});
