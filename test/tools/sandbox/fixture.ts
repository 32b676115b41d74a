import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTree } from "../../support/remove-tree.js";

/**
 * A sandbox test's world on the host, outside `/tmp` (which the sandbox replaces) so that what is
 * outside the workspace is visible to the sandbox, read-only: a workspace that is a git
 * repository with a submodule's git folder (`.git/modules/lib/parser`), a fake HOME with fake credentials, turnloop's folder with a session log, a folder
 * outside the workspace, and a fake agent process (cwd outside, a provider key in its
 * environment). Never the real HOME.
 */
export interface SandboxFixture {
  base: string;
  workspace: string;
  outside: string;
  home: string;
  turnloopHome: string;
  /** A unique secret written into every fake credential file and the fake agent's environment. */
  secret: string;
  /** The fake agent: a host process the sandbox must not reach. */
  agent: ChildProcess & { pid: number };
  /** The environment sandboxed commands get (no provider key: the caller removes them). */
  env: Record<string, string>;
  remove(): Promise<void>;
}

/** Where fixtures live: persistent temporary files, not under `/tmp`. */
const FIXTURE_PARENT = "/var/tmp";

export async function createSandboxFixture(): Promise<SandboxFixture> {
  const base = await mkdtemp(join(FIXTURE_PARENT, "turnloop-sandbox-test-"));
  const secret = `secret-${randomUUID()}`;
  const workspace = join(base, "workspace");
  const outside = join(base, "outside");
  const home = join(base, "home");
  const turnloopHome = join(home, ".turnloop");
  await mkdir(join(workspace, ".git", "hooks"), { recursive: true });
  await writeFile(join(workspace, ".git", "config"), "[core]\n\tbare = false\n");
  await writeFile(join(workspace, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n");
  const submodule = join(workspace, ".git", "modules", "lib", "parser");
  await mkdir(join(submodule, "hooks"), { recursive: true });
  await writeFile(join(submodule, "HEAD"), "ref: refs/heads/main\n");
  await writeFile(join(submodule, "config"), "[core]\n");
  await mkdir(join(workspace, "src"));
  await mkdir(outside);
  await writeFile(join(outside, "existing.txt"), "outside file\n");
  await writeFile(join(workspace, "existing.txt"), "workspace file\n");
  await symlink(join(outside, "linked.txt"), join(workspace, "link-to-outside"));
  await symlink(join(workspace, "linked.txt"), join(workspace, "link-to-inside"));
  for (const [path, content] of Object.entries(credentialFiles(secret))) {
    await mkdir(join(home, path, ".."), { recursive: true });
    await writeFile(join(home, path), content, { mode: 0o600 });
  }
  await writeFile(join(home, ".bashrc"), "# the user's bashrc\n");
  const sessionFolder = join(turnloopHome, "session-state", "session-1");
  await mkdir(sessionFolder, { recursive: true });
  await writeFile(
    join(sessionFolder, "events.jsonl"),
    `{"type":"user.message","data":"${secret}"}\n`,
  );
  const agent = spawn("sleep", ["600"], {
    cwd: outside,
    env: { PATH: process.env.PATH ?? "", OPENAI_API_KEY: secret },
    stdio: "ignore",
  });
  if (agent.pid === undefined) {
    throw new Error("the fake agent did not start");
  }
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TURNLOOP_HOME: turnloopHome,
    LANG: "C.UTF-8",
    TURNLOOP_TEST_VISIBLE: "visible-variable",
  };
  return {
    base,
    workspace,
    outside,
    home,
    turnloopHome,
    secret,
    agent: agent as ChildProcess & { pid: number },
    env,
    async remove() {
      agent.kill("SIGKILL");
      await removeTree(base);
    },
  };
}

/** Fake credential files under HOME, each holding the secret. */
function credentialFiles(secret: string): Record<string, string> {
  return {
    ".ssh/id_ed25519": `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`,
    ".aws/credentials": `[default]\naws_secret_access_key = ${secret}\n`,
    ".config/gcloud/credentials.db": secret,
    ".docker/config.json": `{"auths":{"registry":{"auth":"${secret}"}}}\n`,
    ".kube/config": `token: ${secret}\n`,
    ".netrc": `machine example login me password ${secret}\n`,
    ".npmrc": `//registry/:_authToken=${secret}\n`,
    ".git-credentials": `https://me:${secret}@example\n`,
    ".gnupg/private-keys-v1.d/key.key": secret,
  };
}

/**
 * Runs real git in `cwd` with `args` (a default branch `main` and a committer, so a test needs no
 * git config of the machine's); its stdout.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@t", ...args],
    { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
}

/**
 * What the sandbox says when it removed `made` after a command (src/tools/sandbox/protected-place-stops.ts
 * `gitRepositoryUndone`, as git-guard.ts words what it removed).
 */
export function removed(...made: string[]): string {
  return (
    "the sandbox keeps .git read-only whatever the settings: git runs a repository's hooks and " +
    "reads its config later, outside the sandbox, so a command cannot make one or change where " +
    `git finds them; it removed ${made.join(", ")}, which the command made`
  );
}
