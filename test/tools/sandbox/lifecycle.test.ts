import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VANISHED_MOUNT } from "../../../src/tools/sandbox/availability.js";
import { type SandboxPolicy, sandboxWrap } from "../../../src/tools/sandbox/index.js";
import {
  processesWith,
  type RunOutcome,
  type RunStreams,
  requireSandbox,
  runCommandLine,
  runCommandStreams,
  startCommandLine,
} from "../../support/sandbox.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** What a command that exited 0 having printed `output` answers. */
function exitedZero(output: string): RunOutcome {
  return { exitCode: 0, signal: null, output };
}

/**
 * A command that exited 0 having written `stdout` and `stderr`: compared stream by stream, since
 * output read from two pipes keeps no order between them (a loaded machine reads either first).
 */
function exitedZeroWith(stdout: string, stderr: string): RunStreams {
  return { exitCode: 0, signal: null, stdout, stderr };
}

describe.skipIf(!sandboxReady)("a sandboxed command's life", () => {
  let fixture: SandboxFixture;

  beforeAll(async () => {
    fixture = await createSandboxFixture();
  });

  afterAll(async () => {
    await fixture?.remove();
  });

  const settings = () => ({
    cwd: fixture.workspace,
    home: fixture.home,
    turnloopHome: fixture.turnloopHome,
  });
  const run = (
    policy: SandboxPolicy,
    command: string,
    extra: { temporaryDirectory?: string } = {},
  ) =>
    runCommandLine(sandboxWrap(policy, { ...settings(), ...extra })(command), {
      cwd: fixture.workspace,
      env: fixture.env,
    });

  it.each([
    ["SIGTERM", "SIGTERM"],
    ["SIGKILL", "SIGKILL"],
  ] as const)(
    "a %s to the bwrap process group ends every process inside, those ignoring it and those in their own session too",
    async (_name, signal) => {
      const token = `turnloop-cancel-${randomUUID()}`;
      const command = [
        "trap '' TERM",
        `bash -c ${JSON.stringify(`trap '' TERM; exec -a ${token}-child sleep 600`)} &`,
        `setsid bash -c ${JSON.stringify(`exec -a ${token}-session sleep 600`)} &`,
        `until grep -qas "^${token}-child" /proc/[0-9]*/cmdline; do :; done`,
        `until grep -qas "^${token}-session" /proc/[0-9]*/cmdline; do :; done`,
        "echo started",
        "wait",
      ].join("\n");
      const running = startCommandLine(sandboxWrap("workspace-write", settings())(command), {
        cwd: fixture.workspace,
        env: fixture.env,
      });
      await running.outputContains("started");
      expect(processesWith(`${token}-child`)).toHaveLength(1);
      expect(processesWith(`${token}-session`)).toHaveLength(1);
      process.kill(-running.pid, signal);
      const outcome = await running.done;
      expect({ ...outcome, survivors: processesWith(`${token}*`) }).toEqual({
        exitCode: null,
        signal,
        output: "started\n",
        survivors: [],
      });
    },
  );

  it("passes the exit code, stdout and stderr through", async () => {
    const line = sandboxWrap("workspace-write", settings())("echo out; echo err >&2; exit 3");
    expect(await runCommandStreams(line, { cwd: fixture.workspace, env: fixture.env })).toEqual({
      exitCode: 3,
      signal: null,
      stdout: "out\n",
      stderr: "err\n",
    });
  });

  it("read-only: the workspace cannot be written, /tmp can, privately", async () => {
    const outcome = await run(
      "read-only",
      // bash's error goes to stdout: output read from two pipes keeps no order between them.
      "cat existing.txt; { echo changed > existing.txt; } 2>&1; echo kept > /tmp/scratch && cat /tmp/scratch",
    );
    expect(outcome).toEqual(
      exitedZero("workspace file\nbash: line 1: existing.txt: Read-only file system\nkept\n"),
    );
    expect(await readFile(join(fixture.workspace, "existing.txt"), "utf8")).toBe(
      "workspace file\n",
    );
  });

  it("a private /tmp is empty at each command; a temporary directory lasts from one to the next", async () => {
    await run("workspace-write", "echo first > /tmp/note");
    expect(await run("workspace-write", "cat /tmp/note")).toMatchObject({
      exitCode: 1,
      output: "cat: /tmp/note: No such file or directory\n",
    });
    const temporaryDirectory = await mkdtemp(join(fixture.base, "session-tmp-"));
    await run("workspace-write", "echo first > /tmp/note", { temporaryDirectory });
    expect(
      await run("workspace-write", 'cat /tmp/note; echo "$TMPDIR"', { temporaryDirectory }),
    ).toEqual(exitedZero("first\n/tmp\n"));
    expect(await readFile(join(temporaryDirectory, "note"), "utf8")).toBe("first\n");
  });

  it("a repository without a hooks folder gets an empty read-only one; the rest of .git stays writable", async () => {
    const repository = join(fixture.workspace, "no-hooks");
    await run("workspace-write", "mkdir -p no-hooks/.git && echo '[core]' > no-hooks/.git/config");
    const wrap = sandboxWrap("workspace-write", { ...settings(), cwd: repository });
    const outcome = await runCommandStreams(
      wrap(
        "echo x > .git/hooks/pre-commit; echo ref > .git/HEAD && cat .git/HEAD; ls -A .git/hooks",
      ),
      { cwd: repository, env: fixture.env },
    );
    expect(outcome).toEqual(
      exitedZeroWith("ref\n", "bash: line 1: .git/hooks/pre-commit: Read-only file system\n"),
    );
  });

  it("a workspace reached through a symbolic link is the real folder, writable", async () => {
    const link = join(fixture.base, "workspace-link");
    await rm(link, { force: true });
    await run(
      "danger-full-access",
      `ln -s ${JSON.stringify(fixture.workspace)} ${JSON.stringify(link)}`,
    );
    const wrap = sandboxWrap("workspace-write", { ...settings(), cwd: link });
    expect(
      await runCommandLine(wrap("echo through > through-link.txt && pwd"), {
        cwd: link,
        env: fixture.env,
      }),
    ).toEqual(exitedZero(`${fixture.workspace}\n`));
    expect(await readFile(join(fixture.workspace, "through-link.txt"), "utf8")).toBe("through\n");
  });

  it("the hidden list replaces the default: a file relative to HOME is unreadable, a folder given absolute is empty", async () => {
    await writeFile(join(fixture.home, "token.txt"), fixture.secret);
    const wrap = sandboxWrap("workspace-write", {
      ...settings(),
      hidden: ["~/token.txt", join(fixture.home, ".aws")],
    });
    const outcome = await runCommandStreams(
      wrap("cat ~/token.txt; ls -A ~/.aws; cat ~/.ssh/id_ed25519 | head -1"),
      { cwd: fixture.workspace, env: fixture.env },
    );
    expect(outcome).toEqual(
      exitedZeroWith(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
        `cat: ${join(fixture.home, "token.txt")}: Permission denied\n`,
      ),
    );
  });

  it("a workspace that holds a hidden place (the cwd is HOME) keeps it hidden and unwritable", async () => {
    const wrap = sandboxWrap("workspace-write", { ...settings(), cwd: fixture.home });
    const outcome = await runCommandStreams(
      wrap("ls -A .ssh; echo key > .ssh/id_rsa; echo note > notes.txt && cat notes.txt"),
      { cwd: fixture.home, env: fixture.env },
    );
    expect(outcome).toEqual(
      exitedZeroWith("note\n", "bash: line 1: .ssh/id_rsa: Read-only file system\n"),
    );
    expect(await readFile(join(fixture.home, ".ssh", "id_ed25519"), "utf8")).toContain(
      fixture.secret,
    );
  });

  it("a workspace that holds /proc and /tmp (the cwd is /) still gets a fresh /proc and a private /tmp", async () => {
    const hostTemporary = await mkdtemp(join(tmpdir(), "turnloop-host-tmp-"));
    const command = `ls /proc/${fixture.agent.pid} > /dev/null 2>&1 || echo "agent not visible"; ls ${hostTemporary} 2>&1 || true`;
    // The workspace `/` holds other programs' folders under /tmp, whose `.git` folders the
    // arguments bind: one removed while bwrap starts is bwrap's "Can't find source path" (or "Can't
    // get type of source"), which the runner meets by making the arguments afresh
    // (availability.ts VANISHED_MOUNT); so here.
    let outcome: RunOutcome | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const wrap = sandboxWrap("workspace-write", { ...settings(), cwd: "/" });
      outcome = await runCommandLine(wrap(command), { cwd: fixture.workspace, env: fixture.env });
      if (!VANISHED_MOUNT.test(outcome.output ?? "")) {
        break;
      }
    }
    await rm(hostTemporary, { recursive: true, force: true });
    expect(outcome).toEqual(
      exitedZero(
        `agent not visible\nls: cannot access '${hostTemporary}': No such file or directory\n`,
      ),
    );
  });
});
