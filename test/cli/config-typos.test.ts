import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test as cliTest } from "../support/fixtures.js";

// Issue 24 item 6: a typo in a config file is never silent, and one that would drop permission
// rules stops the run. Through the built CLI as a child process against the fake model server.

/** The fixtures, with `project`: the repository's `.turnloop/config.json` (its folder made, no file). */
const test = cliTest.extend<{ project: string }>({
  project: async ({ repository }, use) => {
    await mkdir(join(repository, ".turnloop"));
    await use(join(repository, ".turnloop", "config.json"));
  },
});

test.override({ git: true });

describe("config typos", () => {
  test("a misspelt permissions section stops -p, the interactive start and turnloop config with exit 64, naming the key meant", async ({
    cli,
    model,
    project,
  }) => {
    await writeFile(project, JSON.stringify({ permisions: { deny: ["bash(rm *)"] } }, null, 2));
    const stopped =
      `turnloop: ${project}: unknown key "permisions" (did you mean "permissions"?): turnloop ` +
      "stops rather than ignore the permission rules there; fix the file, or run with " +
      "--ignore-config-errors to go on without them\n";
    for (const args of [["-p", "hi"], [], ["config"]]) {
      const result = await cli(args);
      expect({ args, ...result }).toEqual({
        args,
        code: 64,
        signal: null,
        stdout: "",
        stderr: stopped,
      });
    }
    expect(model.requests).toHaveLength(0);
  });

  test("an unknown key inside permissions stops too; --ignore-config-errors goes on with a warning", async ({
    cli,
    model,
    project,
  }) => {
    await writeFile(project, JSON.stringify({ permissions: { alow: ["bash(ls)"] } }));
    const stopped = await cli(["-p", "hi"]);
    expect(stopped.code).toBe(64);
    expect(stopped.stderr).toMatch(
      /unknown key "permissions\.alow" \(did you mean "permissions\.allow"\?\): turnloop stops rather than ignore the permission rules there;/,
    );
    expect(model.requests).toHaveLength(0);

    model.enqueue({ text: "went on" });
    const ignored = await cli(["-p", "hi", "--ignore-config-errors"]);
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toContain("went on");
    expect(ignored.stderr).toContain(
      `turnloop: warning: ${project}: unknown key "permissions.alow" (did you mean "permissions.allow"?) ignored with --ignore-config-errors: its rules do not apply\n`,
    );
  });

  // A fresh user's trial (round 3, session 19, #7): `"sandbox": {"polcy": "workspace-write"}`
  // only warned, and commands ran unconfined; the sandbox section guards as permissions does.
  test("an unknown key in or instead of sandbox stops too; --ignore-config-errors says what it drops", async ({
    cli,
    model,
    project,
  }) => {
    const cases = [
      [
        { sandbox: { polcy: "workspace-write" } },
        "sandbox.polcy",
        ' (did you mean "sandbox.policy"?)',
      ],
      [
        { sandbox: { hiden: ["/srv/secrets"] } },
        "sandbox.hiden",
        ' (did you mean "sandbox.hidden"?)',
      ],
      [{ sandbx: { policy: "read-only" } }, "sandbx", ' (did you mean "sandbox"?)'],
    ] as const;
    for (const [settings, key, hint] of cases) {
      await writeFile(project, JSON.stringify(settings));
      const stopped = await cli(["-p", "hi"]);
      expect({ code: stopped.code, stderr: stopped.stderr }).toEqual({
        code: 64,
        stderr: `turnloop: ${project}: unknown key "${key}"${hint}: turnloop stops rather than ignore the sandbox settings there, which would let commands run less confined than you wrote; fix the file, or run with --ignore-config-errors to go on without them\n`,
      });
    }
    expect(model.requests).toHaveLength(0);
    model.enqueue({ text: "went on" });
    const ignored = await cli(["-p", "hi", "--ignore-config-errors"]);
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toContain(
      `turnloop: warning: ${project}: unknown key "sandbx" (did you mean "sandbox"?) ignored with --ignore-config-errors: its setting does not apply\n`,
    );
  });

  test("a context window under 1,000 tokens is refused as the flag refuses it", async ({
    cli,
    project,
  }) => {
    await writeFile(project, JSON.stringify({ contextWindows: { "openai-compatible:m": 10 } }));
    const result = await cli(["-p", "hi"]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 64,
      stderr: `turnloop: ${project}: contextWindows.openai-compatible:m: a whole number of tokens ≥ 1000, as --context-window takes\n`,
    });
  });

  test("an unknown key elsewhere warns with the closest key at its level, and the run goes on", async ({
    cli,
    project,
  }) => {
    await writeFile(
      project,
      JSON.stringify({
        maxTurn: 3,
        providers: { local: { type: "openai-compatible", baseURL: "http://127.0.0.1:1/v1" } },
        autopilot: { maxContinue: 2 },
        colour: "blue",
      }),
    );
    const result = await cli(["config"]);
    expect(result.code).toBe(0);
    // Nested sections first, then the top level (zod's order).
    expect(result.stderr.split("\n")).toEqual([
      `turnloop: warning: ${project}: unknown key "providers.local.baseURL" (did you mean "providers.local.baseUrl"?) ignored`,
      `turnloop: warning: ${project}: unknown key "autopilot.maxContinue" (did you mean "autopilot.maxContinues"?) ignored`,
      `turnloop: warning: ${project}: unknown key "maxTurn" (did you mean "maxTurns"?) ignored`,
      `turnloop: warning: ${project}: unknown key "colour" ignored`,
      // The project is not trusted: its providers wait (project-trust.test.ts).
      `turnloop: warning: ${project}: not applying providers: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`,
      "",
    ]);
  });

  test("a JSON syntax error gives the line and column", async ({ cli, project }) => {
    await writeFile(
      project,
      '{\n  "model": "openai-compatible:fake-model",\n  "maxTurns": 5,\n}\n',
    );
    const result = await cli(["-p", "hi"]);
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      `turnloop: ${project} is not valid JSON: line 4, column 1: Expected double-quoted property name\n`,
    );
    expect(result.stderr).not.toMatch(/position/);
  });
});
