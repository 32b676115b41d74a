import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH, outputOf } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { autoSandboxStop } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";

/**
 * Files in the workspace that other programs read and act on later, outside the sandbox (an
 * editor's tasks, npm's and yarn's project config, direnv's `.envrc`, `.gitmodules`, other
 * agents' project files, a dev container's: src/tools/sandbox/policy.ts `TOOL_CONFIGURATION`), are kept as the home
 * folder's start-up files are, and so are git hook managers' files (pre-commit's, lefthook's,
 * lint-staged's, overcommit's): permission mode `auto` asks before an `edit` or `create` of one
 * (and `-p`, with no terminal, refuses naming why), and its sandboxed `bash` cannot write one,
 * existing or not. Ordinary work beside them (`src/x.ts`, `.vscode-test/`, `docs/.vscode.md`)
 * runs without a question. Real `turnloop -p` children, the real permission gate, real
 * bubblewrap; skipped (and said so) where bubblewrap cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

/** Each place, a file in it to write, and why the sandbox and auto keep it (what `-p` says). */
const PLACES: readonly { place: string; file: string; why: (what: string) => string }[] = [
  {
    place: ".vscode",
    file: ".vscode/tasks.json",
    why: (what) =>
      `your editor runs what ${what} names later, outside the sandbox (a task run when the folder opens, an interpreter, a formatter, a terminal's environment)`,
  },
  {
    place: ".idea",
    file: ".idea/workspace.xml",
    why: (what) =>
      `JetBrains IDEs run what ${what} names later, outside the sandbox (run configurations, startup tasks, external tools)`,
  },
  {
    place: ".npmrc",
    file: ".npmrc",
    why: (what) =>
      `npm reads ${what} at every command in this folder and runs the programs it names, outside the sandbox (script-shell, node-options)`,
  },
  {
    place: ".yarnrc.yml",
    file: ".yarnrc.yml",
    why: (what) =>
      `yarn reads ${what} at every command in this folder and runs the file its yarnPath names, outside the sandbox`,
  },
  {
    place: ".yarnrc",
    file: ".yarnrc",
    why: (what) =>
      `yarn 1 reads ${what} at every command in this folder and runs the file its yarn-path names, outside the sandbox`,
  },
  {
    place: ".envrc",
    file: ".envrc",
    why: (what) => `direnv runs ${what} when your shell enters the folder, outside the sandbox`,
  },
  {
    place: ".gitmodules",
    file: ".gitmodules",
    why: (what) =>
      `git submodule update fetches and checks out the repositories ${what} names, outside the sandbox`,
  },
  {
    place: ".claude",
    file: ".claude/settings.json",
    why: (what) =>
      `Claude Code runs the hooks ${what} names and follows its commands and agents later, outside the sandbox`,
  },
  {
    place: ".codex",
    file: ".codex/config.toml",
    why: (what) =>
      `Codex reads ${what} later, outside the sandbox, and starts the MCP servers it names`,
  },
  {
    place: ".agents",
    file: ".agents/skills/release/SKILL.md",
    why: (what) =>
      `Codex reads the skills in ${what} later, outside the sandbox, and runs their scripts`,
  },
  {
    place: ".gemini",
    file: ".gemini/settings.json",
    why: (what) =>
      `Gemini CLI reads ${what} later, outside the sandbox, and starts the MCP servers and runs the hooks and commands it names`,
  },
  {
    place: ".cursor",
    file: ".cursor/mcp.json",
    why: (what) =>
      `Cursor reads ${what} later, outside the sandbox, starts the MCP servers and runs the hooks it names, and follows its rules`,
  },
  {
    place: ".devcontainer",
    file: ".devcontainer/devcontainer.json",
    why: (what) =>
      `your editor runs the initializeCommand ${what} names on this machine, outside the sandbox, when it builds the dev container`,
  },
  // The trial of round 3 session 34: `create .pre-commit-config.yaml` went through under auto,
  // and pre-commit's hook runs its `repo: local` entries at the user's next commit.
  ...[
    [".pre-commit-config.yaml", ".pre-commit-config.yaml"],
    ["lefthook.yml", "lefthook.yml"],
    [".lefthook", ".lefthook/pre-commit/lint.sh"],
    [".lintstagedrc.json", ".lintstagedrc.json"],
    ["lint-staged.config.js", "lint-staged.config.js"],
    [".overcommit.yml", ".overcommit.yml"],
  ].map(([place = "", file = ""]) => ({
    place,
    file,
    why: (what: string) =>
      `a git hook manager (pre-commit, lefthook, lint-staged, overcommit) reads ${what} at your next commit and runs the commands it names, outside the sandbox`,
  })),
];

/** Ordinary files beside the places, which auto and the sandbox let be written. */
const ORDINARY = ["src/x.ts", ".vscode-test/run.txt", "docs/.vscode.md"];

/** `-p`'s refusal of an edit auto asked about, with no terminal to ask on. */
function autoRefusal(tool: string, file: string, why: string): string {
  return (
    `Permission denied for '${tool}': no terminal to ask on; auto asks about edits of what ` +
    `later runs read: ${why}; rerun with --allow-tool '${tool}(${file})'`
  );
}

type Call = { name: string; arguments: Record<string, string> };

/** Writes each place's file (and a folder place's folder) holding `before\n`. */
async function plantPlaces(folder: string): Promise<void> {
  for (const { file } of PLACES) {
    await mkdir(dirname(join(folder, file)), { recursive: true });
    await writeFile(join(folder, file), "before\n");
  }
}

describe.runIf(sandboxWorks)("what other programs in the workspace run later", () => {
  test("auto asks before edit and create of each, existing or not, and says why; ordinary files are written", async ({
    cli,
    model,
    repository,
  }) => {
    await plantPlaces(repository);
    await symlink(".vscode", join(repository, "link-to-vscode"));
    const calls: Call[] = [
      ...PLACES.map(({ file }) => ({
        name: "edit",
        arguments: { path: file, old_str: "before", new_str: "after" },
      })),
      ...PLACES.map(({ file }) => ({
        name: "create",
        arguments: { path: join("sub", file), file_text: "made\n" },
      })),
      { name: "create", arguments: { path: "link-to-vscode/launch.json", file_text: "made\n" } },
      ...ORDINARY.map((path) => ({ name: "create", arguments: { path, file_text: "made\n" } })),
    ];
    const results = await toolResults(cli, model, calls);
    expect(results).toEqual([
      ...PLACES.map(({ place, file, why }) => autoRefusal("edit", file, why(place))),
      ...PLACES.map(({ place, file, why }) => autoRefusal("create", join("sub", file), why(place))),
      // The rule names the real path, as for every edit through a link.
      autoRefusal("create", ".vscode/launch.json", PLACES[0]?.why(".vscode") ?? ""),
      ...ORDINARY.map((path) => `Created file ${join(repository, path)} with 5 characters`),
    ]);
    for (const { file } of PLACES) {
      expect([file, await readFile(join(repository, file), "utf8")]).toEqual([file, "before\n"]);
      expect([file, existsSync(join(repository, "sub", file))]).toEqual([file, false]);
    }
    expect(existsSync(join(repository, ".vscode", "launch.json"))).toBe(false);
    for (const path of ORDINARY) {
      expect(await readFile(join(repository, path), "utf8")).toBe("made\n");
    }
  });

  test("a sandboxed bash cannot write one that exists; the reason names it and why", async ({
    cli,
    model,
    repository,
  }) => {
    await plantPlaces(repository);
    await symlink(".vscode", join(repository, "link-to-vscode"));
    const commands = [
      ...PLACES.map(({ file }) => `echo x > ${file}`),
      "echo x > link-to-vscode/launch.json",
      `mkdir -p src .vscode-test docs && ${ORDINARY.map((path) => `echo x > ${path}`).join(" && ")} && echo written`,
    ];
    const results = await toolResults(cli, model, commands.map(bashCall));
    expect(results).toEqual([
      ...PLACES.map(
        ({ place, file, why }) =>
          `bash: line 1: ${file}: Read-only file system\n<exited with exit code 1>\n` +
          autoSandboxStop(
            `echo x > ${file}`,
            `the sandbox keeps ${place} read-only whatever the settings: ${why("it")} (Read-only file system)`,
          ),
      ),
      // The reason names the place the write went through the link to, not the path as printed.
      "bash: line 1: link-to-vscode/launch.json: Read-only file system\n<exited with exit code 1>\n" +
        autoSandboxStop(
          "echo x > link-to-vscode/launch.json",
          `the sandbox keeps .vscode read-only whatever the settings: ${PLACES[0]?.why("it")} (Read-only file system)`,
        ),
      "written\n<exited with exit code 0>",
    ]);
    for (const { file } of PLACES) {
      expect([file, await readFile(join(repository, file), "utf8")]).toEqual([file, "before\n"]);
    }
    expect(existsSync(join(repository, ".vscode", "launch.json"))).toBe(false);
    for (const path of ORDINARY) {
      expect(await readFile(join(repository, path), "utf8")).toBe("x\n");
    }
  });

  test("a sandboxed bash that makes one where none was: it is removed, and the reason says so", async ({
    cli,
    model,
    repository,
  }) => {
    const made = (file: string) => {
      const folder = dirname(file);
      return folder === "." ? `echo x > ${file}` : `mkdir -p ${folder} && echo x > ${file}`;
    };
    const results = await toolResults(
      cli,
      model,
      PLACES.map(({ file }) => bashCall(made(file))),
    );
    const real = realpathSync(repository);
    expect(results).toEqual(
      PLACES.map(
        ({ place, file, why }) =>
          `<exited with exit code 0>\n${autoSandboxStop(
            made(file),
            `the sandbox keeps ${place} read-only whatever the settings: ${why("it")}; it removed ${join(real, place)}, which the command made`,
          )}`,
      ),
    );
    for (const { place } of PLACES) {
      expect([place, existsSync(join(repository, place))]).toEqual([place, false]);
    }
  });

  // Auto judges the place an edit lands (the real path of its nearest existing folder), as the
  // sandbox does for commands: an edit of cfg/vscode/tasks.json where .vscode -> cfg/vscode is
  // asked about, as is a file made in settings/tl where .turnloop -> settings/tl.
  test("a place that is a symbolic link into the workspace: what it leads through is kept too", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "cfg", "vscode"), { recursive: true });
    await mkdir(join(repository, "settings", "tl"), { recursive: true });
    await writeFile(join(repository, "cfg", "vscode", "tasks.json"), "before\n");
    await symlink(join("cfg", "vscode"), join(repository, ".vscode"));
    await symlink(join("settings", "tl"), join(repository, ".turnloop"));
    const command = "echo x > cfg/vscode/tasks.json";
    const results = await toolResults(cli, model, [
      bashCall(command),
      {
        name: "edit",
        arguments: { path: "cfg/vscode/tasks.json", old_str: "before", new_str: "after" },
      },
      { name: "create", arguments: { path: "settings/tl/config.json", file_text: "{}\n" } },
      { name: "create", arguments: { path: "cfg/other.json", file_text: "{}\n" } },
    ]);
    expect(results).toEqual([
      "bash: line 1: cfg/vscode/tasks.json: Read-only file system\n<exited with exit code 1>\n" +
        autoSandboxStop(
          command,
          `the sandbox keeps cfg read-only whatever the settings: .vscode leads through it, and ${PLACES[0]?.why(".vscode")} (Read-only file system)`,
        ),
      autoRefusal("edit", "cfg/vscode/tasks.json", PLACES[0]?.why(".vscode") ?? ""),
      autoRefusal(
        "create",
        "settings/tl/config.json",
        "turnloop reads .turnloop to configure later runs (permissions, base URL, MCP servers it starts)",
      ),
      `Created file ${join(repository, "cfg", "other.json")} with 3 characters`,
    ]);
    expect(await readFile(join(repository, "cfg", "vscode", "tasks.json"), "utf8")).toBe(
      "before\n",
    );
    expect(existsSync(join(repository, "settings", "tl", "config.json"))).toBe(false);
  });

  // -p under auto advised `--sandbox danger-full-access`, a usage error next to
  // `--permission-mode auto`: the advice, followed, must run the command.
  test("under auto, the advised flags for a stopped write parse and run it", async ({
    cli,
    model,
    environment,
    repository,
  }) => {
    await plantPlaces(repository);
    const call = bashCall("echo x > .vscode/tasks.json");
    const [stopped] = await toolResults(cli, model, [call]);
    const advice =
      /rerun with (.*), in place of --permission-mode auto \(commands run without/.exec(
        stopped ?? "",
      )?.[1];
    expect(advice).toBeDefined();
    model.enqueue(
      { toolCalls: [{ id: "call_0", name: "bash", arguments: JSON.stringify(call.arguments) }] },
      { text: "Ran it." },
    );
    const line = `exec '${process.execPath}' '${CLI_PATH}' -p go ${advice}`;
    const child = spawn("sh", ["-c", line], { cwd: repository, env: environment() });
    const { code, stdout, stderr } = await outputOf(child);
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: "Ran it.\n",
      stderr: expect.any(String),
    });
    expect(await readFile(join(repository, ".vscode", "tasks.json"), "utf8")).toBe("x\n");
  });
});

function bashCall(command: string): Call {
  return { name: "bash", arguments: { command } };
}

/**
 * Has the fake `model` ask for `calls` in one reply, then answer "Done.", through one
 * `turnloop -p --permission-mode auto` child; each call's tool message, in order.
 */
async function toolResults(
  cli: (args: readonly string[]) => Promise<{ code: number | null; stderr: string }>,
  model: Parameters<typeof chatMessages>[0] & { enqueue: (...replies: object[]) => void },
  calls: readonly Call[],
): Promise<string[]> {
  const toolCalls = calls.map((call, index) => ({
    id: `call_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
  model.enqueue({ toolCalls }, { text: "Done." });
  const result = await cli(["-p", "go", "--permission-mode", "auto"]);
  expect(result.code, result.stderr).toBe(0);
  const messages = chatMessages(model, -1);
  return toolCalls.map(({ id }) =>
    String(messages.find((message) => message.tool_call_id === id)?.content),
  );
}
