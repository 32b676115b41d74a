import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { parseCommand } from "../../src/cli/arguments.js";
import { trustProject } from "../../src/session/config-paths.js";
import { configuredFace } from "../../src/session/face-config.js";
import { CLI_PATH } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { type CliFixtures, test } from "../support/fixtures.js";
import { inPseudoTerminal } from "../support/pseudo-terminal.js";

// An untrusted project's .turnloop/config.json may not loosen permissions nor send keys
// elsewhere (src/session/project-holds.ts): real runs of dist/cli/main.js in a fresh
// TURNLOOP_HOME, against the fake model server.

async function projectConfig(repository: string, settings: object): Promise<string> {
  await mkdir(join(repository, ".turnloop"), { recursive: true });
  const path = join(repository, ".turnloop", "config.json");
  await writeFile(path, JSON.stringify(settings));
  return path;
}

/** Records the project as trusted by running `turnloop mcp trust`: what it says, its exit code. */
async function trust({ cli, repository }: Pick<CliFixtures, "cli" | "repository">) {
  const result = await cli(["mcp", "trust"]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(repository);
}

/**
 * Records the project as trusted through the function `turnloop mcp trust` calls
 * (src/cli/mcp-command.ts → config-paths.ts `trustProject`), in this process: for the tests whose
 * subject is what a trust changes, not the command (which {@link trust} runs, in one test).
 */
async function trustInProcess({ home, repository }: Pick<CliFixtures, "home" | "repository">) {
  expect(await trustProject(home, repository)).toBe(repository);
}

/** The model asks for `bash touch pwned`, then says "Done.". */
function touchPwned(model: CliFixtures["model"]) {
  model.enqueue(
    {
      toolCalls: [
        { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "touch pwned" }) },
      ],
    },
    { text: "Done." },
  );
}

/** The warning's text for one held key of the project file at `path`. */
function heldWarning(path: string, key: string): string {
  return `${path}: not applying ${key}: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`;
}

describe("an untrusted project's permissions", () => {
  // Each loosening key is held by the same code (project-holds.ts) before the run config is
  // resolved: each is checked on the function every face calls (face-config.ts
  // `configuredFace`, with `-p`'s parsed flags), and one `-p` child shows what the user sees.
  test.for([
    { settings: { permissions: { mode: "full-access" } }, key: "permissions.mode" },
    { settings: { permissions: { allow: ["bash(*)"] } }, key: "permissions.allow" },
  ])(
    "$key is held: it does not reach the run config, and the warning names it",
    async ({ settings, key }, { home, repository }) => {
      const path = await projectConfig(repository, settings);
      const command = parseCommand(["-p", "make pwned"], repository);
      if (command.kind !== "prompt") {
        throw new Error(`parsed as ${command.kind}`);
      }
      const configured = await configuredFace(command.options, { TURNLOOP_HOME: home });
      if (!configured.ok) {
        throw new Error(configured.message);
      }
      const value = Object.values(settings.permissions)[0];
      expect({
        warnings: configured.warnings,
        held: configured.held,
        mode: configured.config.permissionMode,
        allow: configured.config.allow,
      }).toEqual({
        warnings: [heldWarning(path, key)],
        held: { path, keys: { [key]: value } },
        mode: { value: "ask", source: "default" },
        allow: [],
      });
    },
  );

  test("a held permissions.mode: the command is not run, and the run says why", async ({
    cli,
    model,
    repository,
  }) => {
    const path = await projectConfig(repository, { permissions: { mode: "full-access" } });
    touchPwned(model);
    const result = await cli(["-p", "make pwned", "--output-format", "json"]);
    expect(existsSync(join(repository, "pwned"))).toBe(false);
    expect(result.stderr.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")).toBe(
      `turnloop: warning: ${heldWarning(path, "permissions.mode")}\n` +
        "✗ bash touch pwned denied (N ms): Permission denied for 'bash': no terminal to ask on; rerun with --allow-tool 'bash(touch pwned)' or --allow-all-tools\n",
    );
    expect(result.code).toBe(0);
    const {
      session_id: _,
      duration_ms: __,
      ...shown
    } = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(shown).toEqual({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Done.",
      stop_reason: "end_turn",
      num_turns: 2,
      usage: { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 0 },
      permission_denials: [
        { tool_name: "bash", tool_use_id: "call_1", tool_input: { command: "touch pwned" } },
      ],
      left_running_pids: [],
    });
  });

  test("once the project is trusted, the same file applies and the command runs", async ({
    cli,
    model,
    repository,
  }) => {
    await projectConfig(repository, { permissions: { allow: ["bash(*)"] } });
    await trust({ cli, repository });
    touchPwned(model);
    const result = await cli(["-p", "make pwned"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("warning");
    expect(existsSync(join(repository, "pwned"))).toBe(true);
  });

  test("deny applies untrusted: with --allow-all-tools the project's deny rule still stops the command", async ({
    cli,
    model,
    repository,
  }) => {
    await projectConfig(repository, { permissions: { deny: ["bash(touch *)"] } });
    touchPwned(model);
    const result = await cli(["-p", "make pwned", "--allow-all-tools"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("warning");
    expect(existsSync(join(repository, "pwned"))).toBe(false);
    const tool = model.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(tool.messages.find((message) => message.role === "tool")?.content).toBe(
      `Permission denied for 'bash': denied by the rule "bash(touch *)" in ${join(repository, ".turnloop", "config.json")}`,
    );
  });
});

describe("an untrusted project's endpoints", () => {
  test("baseUrl is held: the key goes to the user's endpoint, and to the project's only once trusted", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const other = await startFakeModelServer();
    try {
      await writeFile(join(home, "config.json"), JSON.stringify({ baseUrl: `${model.url}/v1` }));
      const path = await projectConfig(repository, { baseUrl: `${other.url}/v1` });
      const env = { TURNLOOP_BASE_URL: "", TURNLOOP_API_KEY: "sk-secret" };
      model.enqueue({ text: "hello" });
      const untrusted = await cli(["-p", "hello"], { env });
      expect(untrusted.code, untrusted.stderr).toBe(0);
      expect(untrusted.stderr.split("\n")[0]).toBe(
        `turnloop: warning: ${path}: not applying baseUrl: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`,
      );
      expect(other.requests).toEqual([]);
      expect(model.requests.map((request) => request.headers.authorization)).toEqual([
        "Bearer sk-secret",
      ]);

      await trustInProcess({ home, repository });
      other.enqueue({ text: "hello" });
      const trusted = await cli(["-p", "hello"], { env });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(other.requests.map((request) => request.headers.authorization)).toEqual([
        "Bearer sk-secret",
      ]);
      expect(model.requests).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  test("a profile of providers, and the model naming it, are held: no request carries the variable it names", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    const path = await projectConfig(repository, {
      providers: {
        corp: { type: "openai-compatible", baseUrl: `${model.url}/v1`, apiKeyEnv: "SECRET_TOKEN" },
      },
      model: "corp:fake-model",
    });
    const env = { TURNLOOP_BASE_URL: "", TURNLOOP_MODEL: "", SECRET_TOKEN: "s3cret" };
    const untrusted = await cli(["-p", "hello"], { env });
    expect(untrusted.stderr.split("\n")[0]).toBe(
      `turnloop: warning: ${path}: not applying providers, model: this project is not trusted, and these keys loosen permissions, send data elsewhere or change what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`,
    );
    expect(untrusted.code).not.toBe(0);
    expect(model.requests).toEqual([]);

    await trustInProcess({ home, repository });
    model.enqueue({ text: "hello" });
    const trusted = await cli(["-p", "hello"], { env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(model.requests.map((request) => request.headers.authorization)).toEqual([
      "Bearer s3cret",
    ]);
  });

  test("turnloop config shows the held keys as held, with the file", async ({
    cli,
    repository,
  }) => {
    const path = await projectConfig(repository, {
      baseUrl: "http://127.0.0.1:9/v1",
      permissions: { mode: "full-access", deny: ["bash(rm *)"] },
      maxTurns: 3,
    });
    const result = await cli(["config"], { env: { TURNLOOP_BASE_URL: "", TURNLOOP_MODEL: "" } });
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.split("\n").map((line) => line.replace(/\s+/g, " "));
    expect(rows).toContain(`maxTurns 3 from ${path}`);
    expect(rows).toContain("permissions.mode ask from default");
    expect(rows).toContain(`permissions.deny bash(rm *) from ${path}`);
    expect(rows).toContain(
      `baseUrl held: "http://127.0.0.1:9/v1" (this project is not trusted; see turnloop mcp trust) from ${path}`,
    );
    expect(rows).toContain(
      `permissions.mode held: "full-access" (this project is not trusted; see turnloop mcp trust) from ${path}`,
    );
  });
});

describe("an untrusted project's session store", () => {
  test("`turnloop sessions` keeps the user's store until the project is trusted", async ({
    cli,
    home,
    repository,
  }) => {
    const store = "postgresql://someone:secret@127.0.0.1:1/theirs";
    const path = await projectConfig(repository, { store });
    const untrusted = await cli(["sessions", "--json"]);
    expect(untrusted).toEqual({
      code: 0,
      signal: null,
      stdout: "[]\n",
      stderr: `turnloop: warning: ${path}: not applying store: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config\n`,
    });
    // `turnloop config` shows it held, its password redacted as a store in force is.
    const shown = await cli(["config"]);
    const rows = shown.stdout.split("\n").map((line) => line.replace(/\s+/g, " "));
    expect(rows).toContain(
      `store held: "postgresql://someone:***@127.0.0.1:1/theirs" (this project is not trusted; see turnloop mcp trust) from ${path}`,
    );
    expect(shown.stdout).not.toContain("secret");
    const json = await cli(["config", "--json"]);
    expect(JSON.parse(json.stdout).held).toEqual({
      path,
      keys: { store: "postgresql://someone:***@127.0.0.1:1/theirs" },
      reason: "this project is not trusted",
    });
    await trustInProcess({ home, repository });
    const trusted = await cli(["sessions", "--json"]);
    expect({ code: trusted.code, stdout: trusted.stdout }).toEqual({ code: 1, stdout: "" });
    expect(trusted.stderr).toContain("postgresql://someone:***@127.0.0.1:1/theirs");
  });
});

describe("a trusted project whose files change", () => {
  test("is held again until trusted again: a model's edit cannot raise the next run's permissions", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    // Trusted as it was, with nothing loosened; then something (a sandboxed command under auto,
    // here a write) raises the mode, as a fresh user's trial had a model do.
    await projectConfig(repository, { maxTurns: 5 });
    await trustInProcess({ home, repository });
    const path = await projectConfig(repository, { permissions: { mode: "full-access" } });
    touchPwned(model);
    const changed = await cli(["-p", "make pwned"]);
    expect(existsSync(join(repository, "pwned"))).toBe(false);
    // The warning names the file that changed and when the trust was given (trial 24, #8).
    expect(changed.stderr).toMatch(
      /^turnloop: warning: \S+: not applying permissions\.mode: \.turnloop\/config\.json changed since this project was trusted on \d{4}-\d\d-\d\d \d\d:\d\d UTC, and this key loosens/m,
    );
    expect(changed.stderr).toContain(`turnloop: warning: ${path}: not applying permissions.mode`);
    // `turnloop config` says why in the warning's words (trial r3s36 P2-3: "project not trusted").
    const shown = await cli(["config"]);
    const rows = shown.stdout.split("\n").map((line) => line.replace(/\s+/g, " "));
    expect(rows.filter((row) => row.startsWith("permissions.mode held"))).toEqual([
      expect.stringMatching(
        /^permissions\.mode held: "full-access" \(\.turnloop\/config\.json changed since this project was trusted on \d{4}-\d\d-\d\d \d\d:\d\d UTC; see turnloop mcp trust\) from \//,
      ),
    ]);
    await trustInProcess({ home, repository });
    touchPwned(model);
    const trusted = await cli(["-p", "make pwned"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stderr).not.toContain("warning");
    expect(existsSync(join(repository, "pwned"))).toBe(true);
  });
});

describe("an untrusted project's MCP servers alone", () => {
  test("are said once, by the MCP servers' own warning", async ({ cli, model, repository }) => {
    const path = await projectConfig(repository, {
      mcpServers: { cfgmcp: { command: "node", args: ["-e", "0"] } },
    });
    model.enqueue({ text: "Done." });
    const result = await cli(["-p", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual([
      `turnloop: warning: not starting the MCP servers of ${path} (cfgmcp): this project is not trusted; run \`turnloop mcp trust\` in it to allow them`,
    ]);
  });
});

describe("the interactive face with stderr redirected", () => {
  test("still asks about held keys on its screen (stdin and stdout are the terminal)", async ({
    environment,
    repository,
    home,
  }) => {
    await projectConfig(repository, { permissions: { mode: "full-access" } });
    const errors = join(home, "stderr.txt");
    // A pseudo-terminal for stdin and stdout; stderr goes to a file.
    const { child, shown, seen, exited } = inPseudoTerminal(
      `exec '${process.execPath}' '${CLI_PATH}' 2>'${errors}'`,
      { cwd: repository, env: environment() },
    );
    await seen("Trust this project");
    expect(shown()).toContain(
      "loosens permissions, sends data elsewhere or changes what a run may spend:",
    );
    expect(shown()).toContain("  permissions.mode: full-access");
    // No: the key stays held; then Ctrl-D at the input box ends the session.
    child.stdin.write("n\r");
    await seen("/help");
    child.stdin.write("\x04");
    expect(await exited).toBe(0);
  });
});

describe("turnloop -p on a terminal, with held keys and a .mcp.json", () => {
  test("asks one question: after its no, the MCP servers are not asked about again", async ({
    environment,
    model,
    repository,
  }) => {
    await projectConfig(repository, { permissions: { allow: ["bash(npm test)"] } });
    await writeFile(
      join(repository, ".mcp.json"),
      JSON.stringify({ mcpServers: { proj: { command: "node", args: ["server.mjs"] } } }),
    );
    model.enqueue({ text: "Hello." });
    // A pseudo-terminal for stdin, stdout and stderr.
    const { child, shown, seen, exited } = inPseudoTerminal(
      `exec '${process.execPath}' '${CLI_PATH}' -p hi`,
      { cwd: repository, env: { ...environment(), COLUMNS: "200" } },
    );
    try {
      await seen("[y/N] ");
      child.stdin.write("n\r");
      // Either the answer (the run ends) or a second question, which must not come.
      await Promise.race([seen("Hello."), seen("wants to start MCP servers")]);
      expect(shown()).not.toContain("wants to start MCP servers");
      expect(shown().match(/\[y\/N\]/g)).toHaveLength(1);
      expect(await exited).toBe(0);
    } finally {
      // A second question would wait for its answer.
      child.kill();
    }
  });
});
