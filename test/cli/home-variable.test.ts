import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test as plainTest } from "vitest";
import { homeInProjectWarning } from "../../src/cli/home-variable.js";
import { ChildFixture } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// Trial of round 3, session 39: a relative TURNLOOP_HOME was read against the current folder, so
// the session logs landed inside the repository (F10); one naming a file was reported as its
// `config.json` that could not be read, not as the variable (F11). Both are usage errors now,
// naming the variable, before anything is stored or sent (README, "Environment variables").

test.override({ git: true });

const RELATIVE =
  'turnloop: TURNLOOP_HOME=relhome is a relative path; give an absolute one (TURNLOOP_HOME="$PWD/relhome" for this folder\'s): read against the current folder, each folder would have a store of its own, and one inside a project would put the session logs among its files\n';

describe("TURNLOOP_HOME that no store can be kept at", () => {
  // The check is one line of runCommand (src/cli/run.ts `homeVariableProblem`) before any command
  // but --help, --version and acp runs: each refusal goes through the built CLI's runCommand in
  // one child (test/support/usage-error-runner.mjs), the first also as a CLI child of its own.
  test("relative, for -p, -p's JSON and sessions; a file, or a path through one: exit 64 naming the variable; nothing made", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const file = join(repository, "notes.txt");
    await writeFile(file, "x\n");
    const relative = RELATIVE.replace(/^turnloop: /, "").trimEnd();
    const json = ["-p", "hi", "--output-format", "json"];
    const { actual, expected } = await usageErrorOutcomes({ cli, environment, repository }, [
      { args: json, env: { TURNLOOP_HOME: "relhome" }, stderr: relative },
      { args: ["-p", "hi"], env: { TURNLOOP_HOME: "relhome" }, stderr: relative },
      { args: ["sessions"], env: { TURNLOOP_HOME: "relhome" }, stderr: relative },
      {
        args: json,
        env: { TURNLOOP_HOME: file },
        stderr: `TURNLOOP_HOME=${file} is not a folder; name a folder (one not there yet is made)`,
      },
      {
        args: json,
        env: { TURNLOOP_HOME: join(file, "sub") },
        stderr: `TURNLOOP_HOME=${file}/sub is not a folder: a part of its path is a file`,
      },
    ]);
    expect(actual).toEqual(expected);
    expect(existsSync(join(repository, "relhome"))).toBe(false);
    expect(model.requests).toHaveLength(0);
  });

  test("an absolute folder not there yet is made at the first write, as before", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({ text: "Hello." });
    const home = join(repository, "new", "home");
    const result = await cli(["-p", "hi", "--quiet"], { env: { TURNLOOP_HOME: home } });
    expect([result.code, result.stdout]).toEqual([0, "Hello.\n"]);
    expect(existsSync(join(home, "session-state"))).toBe(true);
  });
});

describe("TURNLOOP_HOME inside the project folder", () => {
  /** The warning for `home` inside the project `project` (README, "Environment variables"). */
  const warning = (home: string, project: string) =>
    `turnloop: warning: TURNLOOP_HOME=${home} is inside the project ${project}: its session logs (prompts, command output, whatever secrets they hold) land among the project's files, where git may commit them; keep it outside the project, or put a .gitignore holding * in it\n`;

  test("-p warns once on stderr, then answers and stores the session there", async ({
    cli,
    model,
    repository,
  }) => {
    const home = join(repository, "sessions-home");
    model.enqueue({ text: "Hello." });
    const result = await cli(["-p", "hi", "--quiet"], { env: { TURNLOOP_HOME: home } });
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 0,
      stdout: "Hello.\n",
      stderr: warning(home, repository),
    });
    expect(existsSync(join(home, "session-state"))).toBe(true);
  });

  // Whether to warn is decided by one function (src/cli/home-variable.ts `homeInProjectWarning`,
  // which src/cli/run.ts calls with the run config's folder): each place of the home and the
  // folder in-process; the -p child above shows the line.
  test("from a folder below the project's root too; none once the home ignores itself, nor outside a repository", async ({
    home: userHome,
    repository,
  }) => {
    const home = join(repository, ".turnloop-home");
    const below = join(repository, "src");
    await mkdir(below);
    await mkdir(home);
    const scratch = await mkdtemp(join(tmpdir(), "turnloop-scratch-"));
    try {
      const warn = (folder: string, cwd: string) =>
        homeInProjectWarning({ TURNLOOP_HOME: folder }, cwd);
      const before = {
        root: await warn(home, repository),
        below: await warn(home, below),
        outside: await warn(userHome, below),
        scratch: await warn(join(scratch, "sessions-home"), scratch),
      };
      await writeFile(join(home, ".gitignore"), "*\n");
      const warned = { ...before, ignoring: await warn(home, below) };
      const line = warning(home, repository)
        .replace(/^turnloop: warning: /, "")
        .trimEnd();
      expect(warned).toEqual({
        root: line,
        below: line,
        outside: undefined,
        scratch: undefined,
        ignoring: undefined,
      });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  test("--version and --help say nothing of it", async ({ cli, repository }) => {
    const env = { TURNLOOP_HOME: join(repository, "sessions-home") };
    const results = [await cli(["--version"], { env }), await cli(["--help"], { env })];
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual([
      { code: 0, stderr: "" },
      { code: 0, stderr: "" },
    ]);
  });
});

describe("TURNLOOP_HOME in turnloop acp", () => {
  const fixture = ChildFixture.forEachTest();

  plainTest(
    "relative: initialize is answered, session requests fail naming the variable, exit 64 at stdin's close",
    async () => {
      const agent = fixture.startAgent({ TURNLOOP_HOME: "relhome" });
      const message = RELATIVE.replace(/^turnloop: /, "").trimEnd();
      expect(await agent.sessionStartRefusal()).toEqual({
        protocolVersion: acp.PROTOCOL_VERSION,
        newSession: { code: -32603, message: `turnloop cannot start sessions: ${message}` },
      });
      expect(fixture.server.requests).toEqual([]);
      expect(await agent.end()).toBe(64);
      expect(agent.stderr).toBe(RELATIVE);
    },
  );
});
