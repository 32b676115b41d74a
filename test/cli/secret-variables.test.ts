import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { oneCommandThroughCli } from "../support/one-command.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";
import { makeHome } from "../support/test-home.js";

/**
 * The session-27 trial: `echo "$GITHUB_TOKEN" | rev` reached the model intact, in the sandbox
 * too, since redacting values from output is cosmetic. Commands now lack the variables whose names
 * look secret (src/session/command-environment.ts, Codex's default), unless the user's config
 * keeps one (`shellEnvironment.keep`); `turnloop config` says which are dropped.
 */

let server: FakeModelServer;
let home: string;
let workspace: string;
const sandboxWorks = await requireSandbox();

const SECRETS = {
  GITHUB_TOKEN: "ghp_FAKEGITHUBTOKEN",
  MY_DB_PASSWORD: "hunter2-secret",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
  SOME_SETTING: "visible",
  // Session 27's trial: settings whose names hold KEY or TOKEN inside a word were dropped too;
  // names are now read by segments (src/events/secrets.ts `isSecretName`).
  TOKENIZERS_PARALLELISM: "false",
  XKB_DEFAULT_KEYMAP: "de(nodeadkeys)",
  MONKEY_PATCH: "enabled",
  // The trial of round 3 session 34: a CREDS name reached commands.
  DEPLOY_CREDS: "creds-ZZZZ9999",
  // Trial 47 F3: GitLab's job JWT and SonarQube's login token reached commands; LOGNAME stays.
  CI_JOB_JWT_V2: "eyJhbGciOiJSUzI1NiJ9.job",
  SONAR_LOGIN: "squ_0123456789abcdef",
  LOGNAME: "runner",
};
const COMMAND =
  'echo "[$GITHUB_TOKEN]" | rev; echo "[$MY_DB_PASSWORD]" | base64; echo "[$AWS_SECRET_ACCESS_KEY]"; echo "$SOME_SETTING"; echo "$TOKENIZERS_PARALLELISM $XKB_DEFAULT_KEYMAP $MONKEY_PATCH"; echo "[$DEPLOY_CREDS]"; echo "[$CI_JOB_JWT_V2$SONAR_LOGIN] $LOGNAME"';
/** What {@link COMMAND} prints after the secrets' lines: the settings, all there. */
const SETTINGS = "visible\nfalse de(nodeadkeys) enabled\n[]\n[] runner\n";

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await makeHome("turnloop-secret-variables-home-");
  workspace = await mkdtemp(join(tmpdir(), "turnloop-secret-variables-workspace-"));
});
afterAll(async () => {
  await server.close();
  for (const folder of [home, workspace]) {
    await removeTree(folder);
  }
});

const run = (flags: readonly string[]) =>
  oneCommandThroughCli(server, COMMAND, { cwd: workspace, home, flags, env: SECRETS });

const EMPTY_BASE64 = Buffer.from("[]\n").toString("base64");

describe("variables whose names look secret", () => {
  test("a command outside the sandbox does not get them; others it does", async () => {
    const result = await run(["--allow-all-tools"]);
    expect(result.toolResult).toBe(`][\n${EMPTY_BASE64}\n[]\n${SETTINGS}<exited with exit code 0>`);
  });

  test.runIf(sandboxWorks)("nor one in the sandbox", async () => {
    const result = await run(["--sandbox", "workspace-write", "--yolo"]);
    expect(result.toolResult).toBe(`][\n${EMPTY_BASE64}\n[]\n${SETTINGS}<exited with exit code 0>`);
  });

  test("shellEnvironment.keep in the user's config keeps one; turnloop config says what is dropped", async () => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ shellEnvironment: { keep: ["GITHUB_TOKEN"] } }),
    );
    try {
      const result = await run(["--allow-all-tools"]);
      const reversed = [...`[${SECRETS.GITHUB_TOKEN}]`].reverse().join("");
      expect(result.toolResult).toBe(
        `${reversed}\n${EMPTY_BASE64}\n[]\n${SETTINGS}<exited with exit code 0>`,
      );
      const config = await runCli(["config"], {
        cwd: workspace,
        env: cleanEnvironment({ TURNLOOP_HOME: home, ...SECRETS }),
      });
      const rows = config.stdout
        .split("\n")
        .filter((line) => /^(commands' environment|shellEnvironment)/.test(line));
      expect(rows).toEqual([
        "commands' environment    every variable but AWS_SECRET_ACCESS_KEY, CI_JOB_JWT_V2, " +
          "DEPLOY_CREDS, MY_DB_PASSWORD, SONAR_LOGIN (not passed on: provider keys, TURNLOOP_DATABASE_URL, names with a part " +
          "that is or ends with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASS or PASSPHRASE, or " +
          "starts with SECRET, PASSWORD or PASSWD, or names credentials (CRED, CREDS, CREDENTIAL, " +
          "AUTH) in a name that is no path or switch, or ends with a kind of token (JWT, LOGIN, PAT); " +
          "shellEnvironment.keep keeps GITHUB_TOKEN)",
        `shellEnvironment.keep    GITHUB_TOKEN    from ${join(home, "config.json")}`,
      ]);
    } finally {
      await rm(join(home, "config.json"), { force: true });
    }
  });
  test("an untrusted project's shellEnvironment.keep is held", async () => {
    const project = await mkdtemp(join(tmpdir(), "turnloop-secret-variables-project-"));
    await mkdir(join(project, ".git"));
    await mkdir(join(project, ".turnloop"));
    const path = join(project, ".turnloop", "config.json");
    await writeFile(path, JSON.stringify({ shellEnvironment: { keep: ["GITHUB_TOKEN"] } }));
    const config = await runCli(["config"], {
      cwd: project,
      env: cleanEnvironment({ TURNLOOP_HOME: home, ...SECRETS }),
    });
    await removeTree(project);
    expect(config.stderr).toBe(
      `turnloop: warning: ${path}: not applying shellEnvironment.keep: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config\n`,
    );
    expect(config.stdout).toContain(
      "commands' environment    every variable but AWS_SECRET_ACCESS_KEY, CI_JOB_JWT_V2, DEPLOY_CREDS, GITHUB_TOKEN, MY_DB_PASSWORD, SONAR_LOGIN (",
    );
  });
  test("turnloop config with no secret-looking variable says nothing is held back", async () => {
    const config = await runCli(["config"], {
      cwd: workspace,
      env: cleanEnvironment({ TURNLOOP_HOME: home, SOME_SETTING: "visible" }),
    });
    const rows = config.stdout
      .split("\n")
      .filter((line) => line.startsWith("commands' environment"));
    expect(rows).toEqual([
      "commands' environment    every variable; none set here is held back (not passed on: " +
        "provider keys, TURNLOOP_DATABASE_URL, names with a part that is or ends with KEY, SECRET, " +
        "TOKEN, PASSWORD, PASSWD, PASS or PASSPHRASE, or starts with SECRET, PASSWORD or PASSWD, " +
        "or names credentials (CRED, CREDS, CREDENTIAL, AUTH) in a name that is no path or switch, " +
        "or ends with a kind of token (JWT, LOGIN, PAT))",
    ]);
  });
});
