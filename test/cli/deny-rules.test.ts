import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import {
  bashResultThroughCli,
  type ToolCallSpec,
  toolResultsThroughCli,
} from "../support/one-command.js";

describe("turnloop -p --allow-all-tools --deny-tool 'bash(rm *)'", () => {
  const flags = ["--allow-all-tools", "--deny-tool", "bash(rm *)"];

  test("without the deny rule the command does delete the file (the test can fail)", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "x"), "keep me");
    const output = await bashResultThroughCli({ cli, model }, "rm -rf x", ["--allow-all-tools"]);
    expect(output).toContain("<exited with exit code 0>");
    expect(existsSync(join(repository, "x"))).toBe(false);
  });

  // Every spelling in one `-p` run: the model asks for all the calls in one reply and each
  // result is read by its id. Were one to run, the file would be gone and its result not the refusal.
  const commands = [
    `"rm" -rf x`,
    `r\\m -rf x`,
    `command rm -rf x`,
    `env rm -rf x`,
    `/bin/rm -rf x`,
    `bash -c 'rm -rf x'`,
    // Programs that run their arguments (trial finding 17): a wrapper read with its options, one
    // whose words a shell runs, a runner whose syntax is not read, an option that runs a program.
    `flock x.lock rm -rf x`,
    `watch -g -n1 rm -rf x`,
    `setpriv --reuid=0 rm -rf x`,
    `echo y > y && tar cf - y | tar xf - --to-command='rm -rf x'`,
    // Package runners, git's short and abbreviated options, make's --eval (session-16 trial, 1, 2).
    `npx rm -rf x`,
    `npm exec -- rm -rf x`,
    `git init -q src && git clone -q -u 'rm -rf x; git-upload-pack' src c1`,
    `git init -q src && git clone -q --upload-pac='rm -rf x; git-upload-pack' src c1`,
    `make -f /dev/null --eval 'all: ; rm -rf x'`,
  ];
  test("the file survives each spelling, each refused by the rule", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "x"), "keep me");
    const calls = commands.map((command): ToolCallSpec => ["bash", { command }]);
    const { results } = await toolResultsThroughCli({ cli, model }, calls, flags);
    expect(commands.map((command, index) => ({ command, output: results[index] }))).toEqual(
      commands.map((command) => ({
        command,
        output: "Permission denied for 'bash': denied by --deny-tool 'bash(rm *)'",
      })),
    );
    expect(existsSync(join(repository, "x"))).toBe(true);
  });
});

describe("a refusal names where its rule came from", () => {
  test("a rule in the user's config file is named with the file, under ~", async ({
    cli,
    model,
    repository,
    home,
  }) => {
    await writeFile(join(repository, "x"), "keep me");
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ permissions: { deny: ["bash(rm *)"] } }),
    );
    const output = await bashResultThroughCli({ cli, model }, "rm -rf x", ["--allow-all-tools"]);
    expect(output).toBe(
      `Permission denied for 'bash': denied by the rule "bash(rm *)" in ~/config.json`,
    );
    expect(existsSync(join(repository, "x"))).toBe(true);
  });

  test("--deny-tool with a plain tool name is named as typed", async ({ cli, model }) => {
    const output = await bashResultThroughCli({ cli, model }, "echo hi", [
      "--allow-all-tools",
      "--deny-tool",
      "bash",
    ]);
    expect(output).toBe("Permission denied for 'bash': denied by --deny-tool bash");
  });
});

describe("a rule naming another agent's spelling of a tool (trial finding 17)", () => {
  test("--deny-tool 'Bash(rm *)' and a config file's 'shell(rm)' stop the run before anything runs", async ({
    cli,
    model,
    repository,
    home,
  }) => {
    await writeFile(join(repository, "x"), "keep me");
    const flag = await cli(["-p", "delete x", "--allow-all-tools", "--deny-tool", "Bash(rm *)"]);
    expect(flag).toMatchObject({
      code: 64,
      stdout: "",
      stderr:
        'turnloop: tool rule "Bash(rm *)" names no turnloop tool (names are lower-case: view, create, edit, grep, glob, bash, update_plan, task_complete, mcp); did you mean bash(rm *)?\n',
    });
    const config = join(home, "config.json");
    await writeFile(config, JSON.stringify({ permissions: { deny: ["shell(rm)"] } }));
    const file = await cli(["-p", "delete x", "--allow-all-tools"]);
    expect(file).toMatchObject({ code: 64, stdout: "" });
    expect(file.stderr).toContain(`turnloop: ${config}: permissions.deny: tool rule "shell(rm)"`);
    expect(file.stderr).toContain("did you mean bash(rm)?");
    expect(model.requests.length).toBe(0);
    expect(existsSync(join(repository, "x"))).toBe(true);
  });
});
