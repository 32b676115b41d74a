import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test as plainTest } from "vitest";
import { ChildFixture } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 39: a relative TURNLOOP_HOME was read against the current folder, so
// the session logs landed inside the repository (F10); one naming a file was reported as its
// `config.json` that could not be read, not as the variable (F11). Both are usage errors now,
// naming the variable, before anything is stored or sent (README, "Environment variables").

test.override({ git: true });

const RELATIVE =
  'turnloop: TURNLOOP_HOME=relhome is a relative path; give an absolute one (TURNLOOP_HOME="$PWD/relhome" for this folder\'s): read against the current folder, each folder would have a store of its own, and one inside a project would put the session logs among its files\n';

describe("TURNLOOP_HOME that no store can be kept at", () => {
  test.for([["-p", "hi"], ["-p", "hi", "--output-format", "json"], ["sessions"]])(
    "relative, %s: exit 64 naming the variable; nothing made in the current folder",
    async (args, { cli, model, repository }) => {
      model.enqueue({ text: "Hello." });
      const result = await cli(args, { env: { TURNLOOP_HOME: "relhome" } });
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 64,
        stdout: "",
        stderr: RELATIVE,
      });
      expect(existsSync(join(repository, "relhome"))).toBe(false);
      expect(model.requests).toHaveLength(0);
    },
  );

  test("a file, or a path through one: exit 64 naming the variable, not its config.json", async ({
    cli,
    model,
    repository,
  }) => {
    const file = join(repository, "notes.txt");
    await writeFile(file, "x\n");
    const results = [];
    for (const home of [file, join(file, "sub")]) {
      const result = await cli(["-p", "hi", "--output-format", "json"], {
        env: { TURNLOOP_HOME: home },
      });
      results.push({ code: result.code, stdout: result.stdout, stderr: result.stderr });
    }
    expect(results).toEqual([
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: TURNLOOP_HOME=${file} is not a folder; name a folder (one not there yet is made)\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: TURNLOOP_HOME=${file}/sub is not a folder: a part of its path is a file\n`,
      },
    ]);
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

  test("from a folder below the project's root too; none once the home ignores itself", async ({
    cli,
    model,
    repository,
  }) => {
    const home = join(repository, ".turnloop-home");
    const below = join(repository, "src");
    await mkdir(below);
    model.enqueue({ text: "One." }, { text: "Two." });
    const warned = await cli(["-p", "hi", "--quiet"], { env: { TURNLOOP_HOME: home }, cwd: below });
    await writeFile(join(home, ".gitignore"), "*\n");
    const quiet = await cli(["-p", "hi", "--quiet"], { env: { TURNLOOP_HOME: home }, cwd: below });
    expect([warned, quiet].map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      { code: 0, stdout: "One.\n", stderr: warning(home, repository) },
      { code: 0, stdout: "Two.\n", stderr: "" },
    ]);
  });

  test("none when no folder up is a repository (a scratch folder: nothing would commit it)", async ({
    cli,
    model,
  }) => {
    const scratch = await mkdtemp(join(tmpdir(), "turnloop-scratch-"));
    try {
      const home = join(scratch, "sessions-home");
      model.enqueue({ text: "Hello." });
      const result = await cli(["-p", "hi", "--quiet"], {
        env: { TURNLOOP_HOME: home },
        cwd: scratch,
      });
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 0,
        stdout: "Hello.\n",
        stderr: "",
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
