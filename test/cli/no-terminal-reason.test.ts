import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH, outputOf } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";

// A fresh user's trial: `-p` without a terminal refused a call and always suggested
// `--allow-tool RULE (e.g. 'bash(npm *)', 'mcp(server)') or --allow-all-tools`, also when the
// run was sandboxed (where --permission-mode auto is the way) or when no flag could help (a
// command that cannot be fully read under deny rules). The suggestion now fits the case, from one
// table (src/cli/no-terminal-reason.ts). Each case through the built CLI as a child process; the
// whole reason the model was given is asserted (the tool line shows the same text).

const sandboxWorks = await requireSandbox();

function turnloopReads(place: string): string {
  return `turnloop reads ${place} to configure later runs (permissions, base URL, MCP servers it starts)`;
}

function shellReads(place: string): string {
  return `your shell or git reads ${place} and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a program early in PATH)`;
}

interface Case {
  name: string;
  call: { name: string; arguments: Record<string, string> };
  flags: string[];
  reason: string;
  sandbox?: boolean;
}

const cases: Case[] = [
  {
    name: "a command, mode ask, no sandbox",
    call: { name: "bash", arguments: { command: "touch made.txt" } },
    flags: [],
    reason: "rerun with --allow-tool 'bash(touch made.txt)' or --allow-all-tools",
  },
  // Trial 27, finding 10b: a compound command the allow rules cover in part was refused with the
  // whole command as the rule to allow; the parts they leave are named, each with its own rule.
  {
    name: "a compound command the allow rules cover in part",
    call: { name: "bash", arguments: { command: "echo hi && touch made.txt; touch b.txt" } },
    flags: ["--allow-tool", "bash(echo *)"],
    reason:
      "the allow rules do not cover `touch made.txt`, `touch b.txt`; rerun with --allow-tool 'bash(touch made.txt)' --allow-tool 'bash(touch b.txt)' or --allow-all-tools",
  },
  {
    name: "an edit, mode ask",
    call: { name: "create", arguments: { path: "made.txt", file_text: "x" } },
    flags: [],
    reason: "rerun with --allow-tool 'create(made.txt)' or --allow-all-tools",
  },
  {
    name: "a command that cannot be fully read under a deny rule, even with --allow-all-tools",
    call: { name: "bash", arguments: { command: "$TOOL made.txt" } },
    flags: ["--allow-all-tools", "--deny-tool", "bash(rm *)"],
    reason:
      "no flag allows a command that cannot be fully read while deny rules apply: run -p on a terminal to answer",
  },
  {
    name: "a command, mode ask, in the sandbox",
    call: { name: "bash", arguments: { command: "touch made.txt" } },
    flags: ["--sandbox", "workspace-write"],
    reason:
      "rerun with --permission-mode auto (commands run in the sandbox without asking) or --allow-tool 'bash(touch made.txt)'",
    sandbox: true,
  },
  {
    name: "an edit, mode auto, read-only sandbox",
    call: { name: "create", arguments: { path: "made.txt", file_text: "x" } },
    flags: ["--permission-mode", "auto", "--sandbox", "read-only"],
    reason:
      "the read-only sandbox asks about every edit; rerun with --allow-tool 'create(made.txt)' or --sandbox workspace-write",
    sandbox: true,
  },
  {
    name: "an edit outside the workspace, mode auto",
    call: { name: "create", arguments: { path: "OUTSIDE/made.txt", file_text: "x" } },
    flags: ["--permission-mode", "auto"],
    reason:
      "auto asks about edits outside the workspace; rerun with --allow-tool 'create(OUTSIDE/made.txt)' or --add-dir <folder>",
    sandbox: true,
  },
  // A fresh user's trial: under auto, the model wrote its own `.turnloop/config.json`
  // (`permissions.mode: full-access`) and `.git/hooks/pre-commit` without a question, and the
  // next run took them. Auto asks about edits of what later runs read.
  // Another: the same for the hooks folder the repository's core.hooksPath names (husky's
  // `.husky`; the harness's repository sets it to `.husky/_`, as husky 9 does, whose hooks run the
  // scripts in `.husky`).
  // Trial 27: with the home folder as the workspace (`cd ~ && turnloop --autopilot`), auto wrote
  // `~/.bashrc` without a question, since it lies inside the workspace; the sandbox keeps the same
  // files read-only for commands (tools/sandbox/policy.ts STARTUP_FILES). Auto asks about them too,
  // in any folder: shell start-up files, git's user config, `.local/bin`.
  // Each refusal names the place and who acts on it later (tools/sandbox/policy.ts
  // `laterRunReason`; the editor's, npm's and other programs' files: sandbox-tool-configuration).
  ...(
    [
      [".turnloop/config.json", turnloopReads(".turnloop")],
      [".mcp.json", turnloopReads(".mcp.json")],
      [
        ".git/hooks/pre-commit",
        "git runs the hooks and reads the config in .git later, outside the sandbox",
      ],
      [
        ".husky/pre-commit",
        "git runs the hooks in the folder the repository's core.hooksPath names, and reads the config files it includes, later, outside the sandbox",
      ],
      [".bashrc", shellReads(".bashrc")],
      [".profile", shellReads(".profile")],
      [".zshenv", shellReads(".zshenv")],
      [".gitconfig", shellReads(".gitconfig")],
      [".config/git/config", shellReads(".config/git")],
      [".local/bin/git", shellReads(".local/bin")],
      ["tools/.bash_profile", shellReads(".bash_profile")],
    ] as const
  ).map(
    ([path, why]): Case => ({
      name: `an edit of ${path} in the workspace, mode auto`,
      call: { name: "create", arguments: { path, file_text: "{}" } },
      flags: ["--permission-mode", "auto"],
      reason: `auto asks about edits of what later runs read: ${why}; rerun with --allow-tool 'create(${path})'`,
      sandbox: true,
    }),
  ),
];

describe("the reason -p gives for a call it had no terminal to ask about", () => {
  test("fits the case: what the call is, the permission mode and the sandbox", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, ".git"));
    await writeFile(join(repository, ".git", "config"), "[core]\n\thooksPath = .husky/_\n");
    const outside = await mkdtemp(join("/var/tmp", "turnloop-no-terminal-"));
    try {
      // The cases with the same flags share one `-p` run: the model asks for their calls in one
      // reply, and each call's refusal is read by its id (17 cases, 6 runs).
      const run = cases.filter((each) => sandboxWorks || each.sandbox !== true);
      const byFlags = new Map<string, Case[]>();
      for (const each of run) {
        const key = JSON.stringify(each.flags);
        byFlags.set(key, [...(byFlags.get(key) ?? []), each]);
      }
      const reasons = new Map<string, unknown>();
      for (const [flags, group] of byFlags) {
        const toolCalls = group.map(({ call }, index) => ({
          id: `call_${index}`,
          name: call.name,
          arguments: JSON.stringify(call.arguments).replaceAll("OUTSIDE", outside),
        }));
        model.enqueue({ toolCalls }, { text: "Refused." });
        const result = await cli(["-p", "go", ...JSON.parse(flags)]);
        expect([flags, result.code]).toEqual([flags, 0]);
        const messages = chatMessages(model, -1);
        for (const [index, { name }] of group.entries()) {
          const tool = messages.find((message) => message.tool_call_id === `call_${index}`);
          reasons.set(name, tool?.content);
        }
      }
      const results = run.map(({ name }) => ({ name, reason: reasons.get(name) }));
      expect(results).toEqual(
        run.map(({ name, call, reason }) => ({
          name,
          reason: `Permission denied for '${call.name}': ${
            name.startsWith("a command that cannot")
              ? "the command cannot be fully read (a command name that is computed when it runs ($TOOL)) and bash(rm *) must hold, so it needs asking; "
              : ""
          }no terminal to ask on; ${reason.replaceAll("OUTSIDE", outside)}`,
        })),
      );
    } finally {
      await removeTree(outside);
    }
  });
});

// The same trial: the advice for `grep -n 'turnloop' notes.md | head -2` was `--allow-tool
// 'bash(grep -n 'turnloop' notes.md | head -2)'`, which a shell splits at the inner quotes. The
// rule is now quoted for a POSIX shell whatever it holds; the advised command is run in `sh` and
// must allow the very call that was refused.
describe("the advised --allow-tool, run in sh", () => {
  const commands = [
    "grep -n 'turnloop' notes.md | head -2",
    `grep -c "it's" notes.md`,
    "echo '$&' \\'MCP_RULE\\'",
  ];
  // The three calls are refused in one run (each reason read by its id); each advice is then run
  // alone, so that it alone must allow its call.
  test("allows the refused call, for each command", async ({
    cli,
    model,
    environment,
    repository,
  }) => {
    await writeFile(join(repository, "notes.md"), "turnloop it's here\n");
    const callOf = (command: string, index: number) => ({
      id: `call_${index}`,
      name: "bash",
      arguments: JSON.stringify({ command }),
    });
    model.enqueue({ toolCalls: commands.map(callOf) }, { text: "Refused." });
    expect((await cli(["-p", "go"])).code).toBe(0);
    const refusals = chatMessages(model, -1);
    const seen = [];
    for (const [index, command] of commands.entries()) {
      const call = callOf(command, index);
      const reason = String(refusals.find((m) => m.tool_call_id === call.id)?.content);
      const advice = /rerun with (--allow-tool .*) or --allow-all-tools$/.exec(reason)?.[1];
      model.enqueue({ toolCalls: [call] }, { text: "Ran it." });
      const line = `exec '${process.execPath}' '${CLI_PATH}' -p go ${advice}`;
      const rerun = await runShell(line, repository, environment());
      const ran = String(chatMessages(model, -1).find((m) => m.role === "tool")?.content);
      const expected = spawnSync("sh", ["-c", command], { cwd: repository, encoding: "utf8" });
      seen.push({ command, advised: advice !== undefined, rerun, ran });
      expect(ran).toContain(expected.stdout.trim());
    }
    expect(seen).toEqual(
      commands.map((command) => ({
        command,
        advised: true,
        rerun: { code: 0, stdout: "Ran it.\n" },
        ran: expect.not.stringContaining("Permission denied"),
      })),
    );
  });
  test("the parts' rules, with the rules given, allow a compound command refused in part", async ({
    cli,
    model,
    environment,
    repository,
  }) => {
    const command = "echo hi && touch made.txt";
    const call = { id: "call_1", name: "bash", arguments: JSON.stringify({ command }) };
    model.enqueue({ toolCalls: [call] }, { text: "Refused." });
    expect((await cli(["-p", "go", "--allow-tool", "bash(echo *)"])).code).toBe(0);
    const reason = String(chatMessages(model, -1).find((m) => m.role === "tool")?.content);
    const advice = /rerun with (--allow-tool .*) or --allow-all-tools$/.exec(reason)?.[1];
    expect(advice).toBe("--allow-tool 'bash(touch made.txt)'");
    model.enqueue({ toolCalls: [call] }, { text: "Ran it." });
    const line = `exec '${process.execPath}' '${CLI_PATH}' -p go --allow-tool 'bash(echo *)' ${advice}`;
    expect(await runShell(line, repository, environment())).toEqual({
      code: 0,
      stdout: "Ran it.\n",
    });
    expect(existsSync(join(repository, "made.txt"))).toBe(true);
  });
});

function runShell(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string }> {
  const child = spawn("sh", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "ignore"] });
  return outputOf(child).then(({ code, stdout }) => ({ code, stdout }));
}
