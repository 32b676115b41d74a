import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { trustProject } from "../../src/session/config-paths.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";

// The user's and the project's config files, through the built CLI as a child process against
// the fake model server (project-instructions.test.ts: instructions and system prompt flags).

test.override({ git: true });

describe("config files", () => {
  test("the user's and the project's config.json set the model, a provider profile, limits and rules; flags and env win", async ({
    model,
    home,
    repository,
    loggedEvents,
  }) => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({
        model: "local:fake-model",
        providers: {
          local: { type: "openai-compatible", baseUrl: `${model.url}/v1`, apiKeyEnv: "LOCAL_KEY" },
        },
        maxTurns: 1,
      }),
    );
    await mkdir(join(repository, ".turnloop"));
    await writeFile(
      join(repository, ".turnloop", "config.json"),
      JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }),
    );
    // Held in a project not trusted (project-trust.test.ts).
    await trustProject(home, repository);
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hello"}' }] },
      { text: "done" },
    );
    const env = cleanEnvironment({ TURNLOOP_HOME: home, LOCAL_KEY: "local-secret-key-123" });
    // maxTurns 1 from the user's file would stop after the tool call; the flag wins.
    const result = await runCli(["-p", "say hello", "--max-turns", "5"], { cwd: repository, env });
    expect(result.stderr).not.toContain("permission denied");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("done");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.headers.authorization).toBe("Bearer local-secret-key-123");
    const events = await loggedEvents(printedSessionId(result.stderr));
    // The session keeps the profile's name, so a resume runs on its endpoint with its key.
    expect(events[0]?.data).toMatchObject({ model: "local:fake-model" });

    // Without the flag, the user's maxTurns applies.
    model.enqueue({
      toolCalls: [{ id: "call_2", name: "bash", arguments: '{"command":"echo again"}' }],
    });
    const limited = await runCli(["-p", "again"], { cwd: repository, env });
    expect(limited.code).toBe(2);
    expect(limited.stderr).toContain("stopped: reached the turn limit (1); continue with");

    // TURNLOOP_MODEL beats the config files.
    const config = await runCli(["config"], {
      cwd: repository,
      env: { ...env, TURNLOOP_MODEL: "ollama:qwen3" },
    });
    expect(config.code).toBe(0);
    const lines = config.stdout.split("\n");
    expect(lines.find((line) => line.startsWith("model "))).toMatch(
      /ollama:qwen3\s+from TURNLOOP_MODEL$/,
    );
    expect(lines.find((line) => line.startsWith("maxTurns "))).toMatch(
      new RegExp(`1\\s+from ${join(home, "config.json")}$`),
    );
    expect(lines.find((line) => line.startsWith("permissions.allow "))).toMatch(
      new RegExp(`bash\\(echo \\*\\)\\s+from ${join(repository, ".turnloop", "config.json")}$`),
    );
    expect(config.stdout).not.toContain("local-secret-key-123");
  });

  test("a command's environment has no profile's key variable, the unused profiles' included", async ({
    model,
    home,
    repository,
  }) => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({
        model: "vllm:fake-model",
        providers: {
          vllm: {
            type: "openai-compatible",
            baseUrl: `${model.url}/v1`,
            apiKeyEnv: "VLLM_API_KEY",
          },
          spare: { type: "openai", apiKeyEnv: "SPARE_PROFILE_KEY" },
        },
      }),
    );
    model.enqueue(
      {
        toolCalls: [
          { id: "call_env", name: "bash", arguments: '{"command":"env | cut -d= -f1 | sort"}' },
        ],
      },
      { text: "done" },
    );
    const env = cleanEnvironment({
      TURNLOOP_HOME: home,
      VLLM_API_KEY: "vllm-secret-key-123",
      SPARE_PROFILE_KEY: "spare-secret-key-456",
      OPENAI_API_KEY: "openai-secret-key-789",
      VISIBLE_SETTING: "kept",
    });
    const result = await runCli(["-p", "show the environment", "--allow-all-tools"], {
      cwd: repository,
      env,
    });
    expect(result.code).toBe(0);
    // The profile's key reached the model's endpoint, and no command.
    expect(model.requests[0]?.headers.authorization).toBe("Bearer vllm-secret-key-123");
    const toolResult = chatMessages(model, 1).find((message) => message.role === "tool");
    // TURNLOOP_MCP_STARTUP_WAIT_MS is the test fixture's own (test/support/cli.ts).
    // The editors and git's prompt are turnloop's non-interactive defaults (command-environment.ts).
    const names = ["EDITOR", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR"];
    names.push("GIT_TERMINAL_PROMPT", "HOME", "PAGER", "PATH", "PWD", "SHLVL", "TURNLOOP_HOME");
    names.push("TURNLOOP_MCP_STARTUP_WAIT_MS");
    expect(toolResult?.content).toBe(
      `${[...names, "VISIBLE_SETTING", "VISUAL", "_"].join("\n")}\n<exited with exit code 0>`,
    );
  });

  test("turnloop config shows each setting's source and redacts keys", async ({
    home,
    repository,
  }) => {
    await rm(join(repository, ".turnloop", "config.json"), { force: true });
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({
        model: "vllm:qwen3",
        providers: {
          vllm: {
            type: "openai-compatible",
            baseUrl: "http://127.0.0.1:8000/v1",
            apiKeyEnv: "VLLM_KEY",
          },
        },
        mcpServers: { files: { command: "npx", args: ["-y", "some-mcp-server"] } },
        contextWindows: { "openai-compatible:qwen3": 32_768 },
      }),
    );
    const result = await runCli(["config", "--max-turns", "9"], {
      cwd: repository,
      env: cleanEnvironment({ TURNLOOP_HOME: home, VLLM_KEY: "sk-abcdefghijklmnop" }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const source = join(home, "config.json");
    // The file that is there, and the one that is not.
    expect(result.stdout.split("\n")[0]).toBe(
      `config files: ${source} (user), ${join(repository, ".turnloop", "config.json")} (project, none)`,
    );
    expect(result.stdout).toContain(
      `model                                  vllm:qwen3 (= openai-compatible:qwen3)    from ${source}\n`,
    );
    expect(result.stdout).toContain(
      // The profile's model: its profile's endpoint, named as such (README, "Config files").
      `baseUrl                                http://127.0.0.1:8000/v1    from providers.vllm.baseUrl in ${source}\n`,
    );
    expect(result.stdout).toContain(
      "apiKey                                 sk-a…[redacted]    from VLLM_KEY\n",
    );
    expect(result.stdout).toContain(
      "maxTurns                               9    from --max-turns\n",
    );
    expect(result.stdout).toContain("autopilot.maxContinues                 5    from default\n");
    expect(result.stdout).toContain(
      `mcpServers.files                       {"type":"stdio","command":"npx","args":["-y","some-mcp-server"],"env":{}}    from ${source}\n`,
    );
    expect(result.stdout).toContain(
      `contextWindows.openai-compatible:qwen3 32768 tokens    from ${source}\n`,
    );
    expect(result.stdout).not.toContain("abcdefghijklmnop");
  });

  test("a bad file is reported with its path and field, no stack trace, and nothing runs; unknown keys warn", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, ".turnloop"));
    const project = join(repository, ".turnloop", "config.json");
    await writeFile(project, JSON.stringify({ autopilot: { maxContinues: "lots" } }));
    const bad = await cli(["-p", "hi"]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toBe(
      `turnloop: ${project}: autopilot.maxContinues: must be a number, not the string "lots"\n`,
    );
    expect(model.requests).toHaveLength(0);

    await writeFile(project, "{ not json");
    // An agent serves sessions of other folders too: this folder's are refused (session-18 #1).
    const broken = await cli(["acp"]);
    expect(broken.code).toBe(0);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^turnloop: warning: ${project} is not valid JSON: .+; sessions in ${repository} are refused until it is fixed\\n$`,
      ),
    );
    expect(broken.stdout).toBe("");

    await writeFile(project, JSON.stringify({ modle: "x", maxTurns: 5 }));
    model.enqueue({ text: "ok" });
    const warned = await cli(["-p", "hi"]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(
      `turnloop: warning: ${project}: unknown key "modle" (did you mean "model"?) ignored\n`,
    );
  });

  test("a file's model that names no provider or profile, or a bad rule, is the file's error on every face", async ({
    cli,
    model,
    home,
    repository,
    environment,
  }) => {
    const project = join(repository, ".turnloop", "config.json");
    await mkdir(join(repository, ".turnloop"), { recursive: true });
    const profiles = {
      local: { type: "openai-compatible", baseUrl: `${model.url}/v1`, apiKeyEnv: "LOCAL_KEY" },
    };
    // The profile's name misspelt: the file is named, and so are the profiles it has.
    await writeFile(project, JSON.stringify({ model: "locl:fake-model", providers: profiles }));
    // A profile is held in a project not trusted (project-trust.test.ts); checked either way.
    await trustProject(home, repository);
    const withoutModelVariable = { ...environment(), TURNLOOP_MODEL: undefined };
    const requestsBefore = model.requests.length;
    const problem =
      `${project}: model: "locl:fake-model" is not <provider>:<model> with provider ` +
      "one of openai, openai-chat, anthropic, ollama, openai-compatible, nor <profile>:<model> " +
      'with profile one of local (did you mean "local:fake-model"?)';
    for (const args of [["-p", "hi"], ["acp"], ["--headless", "--stdio"], ["config"]]) {
      const result = await runCli(args, { cwd: repository, env: withoutModelVariable });
      // An agent or server serves other folders too: this folder's sessions are refused.
      const serves = args[0] === "acp" || args[0] === "--headless";
      expect({ args, ...result }).toEqual({
        args,
        code: serves ? 0 : 64,
        signal: null,
        stdout: "",
        stderr: serves
          ? `turnloop: warning: ${problem}; sessions in ${repository} are refused until it is fixed\n`
          : `turnloop: ${problem}\n`,
      });
    }
    await writeFile(project, JSON.stringify({ permissions: { deny: ["bash(git push"] } }));
    const rule = await cli(["-p", "hi"]);
    expect(rule).toMatchObject({
      code: 64,
      stdout: "",
      stderr: `turnloop: ${project}: permissions.deny: invalid tool rule "bash(git push": use NAME or NAME(pattern), e.g. bash(git status)\n`,
    });
    expect(model.requests.length).toBe(requestsBefore);
    // The same model written correctly runs.
    await writeFile(project, JSON.stringify({ model: "local:fake-model", providers: profiles }));
    // A trust covers the contents it was given for: the changed file is trusted again.
    await trustProject(home, repository);
    model.enqueue({ text: "ok" });
    // With its profile's key variable set: an unset one is refused (profile-words.test.ts).
    const fixed = await runCli(["-p", "hi", "-q"], {
      cwd: repository,
      env: { ...withoutModelVariable, LOCAL_KEY: "local-key-123456" },
    });
    expect(fixed).toMatchObject({ code: 0, stdout: "ok\n" });
  });
});
