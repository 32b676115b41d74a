import { existsSync, realpathSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_HIDDEN_SOCKETS,
  describeSandboxAvailability,
  isSandboxPolicy,
  sandboxAvailability,
  sandboxWrap,
} from "../../../src/tools/sandbox/index.js";
import { unixSocketFilter } from "../../../src/tools/sandbox/unix-socket-filter.js";

/** What every bubblewrap command line starts with (network off). */
const ISOLATION = [
  "--die-with-parent",
  "--new-session",
  "--unshare-user",
  "--disable-userns",
  "--unshare-pid",
  "--as-pid-1",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--cap-drop",
  "ALL",
];
/** 1 GiB, the default cap of the sandbox's /tmp and /dev/shm. */
const GIB = String(1024 * 1024 * 1024);
const SHARED_MEMORY = ["--size", GIB, "--tmpfs", "/dev/shm"];
const BASE_MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...SHARED_MEMORY];
/** The seccomp filter that refuses Unix sockets, read by bwrap from file descriptor 3. */
const UNIX_SOCKET_FILTER = ["--seccomp", "3"];
const FILTER_INPUTS = [unixSocketFilter()];
/** Docker's socket is hidden where this machine has one. */
const DOCKER_SOCKETS = [
  ...new Set(
    DEFAULT_HIDDEN_SOCKETS.filter((path) => existsSync(path)).map((path) => realpathSync(path)),
  ),
].flatMap((path) => ["--ro-bind", "/dev/null", path]);
/** A private TMPDIR, and caches there (HOME's are read-only: no writable root holds them). */
const PRIVATE_FOLDERS = [
  ...["--setenv", "TMPDIR", "/tmp"],
  ...["--setenv", "npm_config_cache", "/tmp/.npm", "--setenv", "XDG_CACHE_HOME", "/tmp/.cache"],
];
/** The environment with the network on: private folders, no provider keys. */
const ENVIRONMENT = [
  ...PRIVATE_FOLDERS,
  ...["--unsetenv", "TURNLOOP_API_KEY", "--unsetenv", "OPENAI_API_KEY"],
  ...["--unsetenv", "ANTHROPIC_API_KEY"],
];
/** With the network off, npm is told not to retry a fetch too (it backs off 10 s, then 60 s). */
const OFFLINE_ENVIRONMENT = [
  ...PRIVATE_FOLDERS,
  ...["--setenv", "npm_config_fetch_retries", "0"],
  ...ENVIRONMENT.slice(PRIVATE_FOLDERS.length),
];

describe("the bubblewrap command line", () => {
  let base: string;
  let home: string;
  let workspace: string;

  beforeAll(async () => {
    base = await mkdtemp("/var/tmp/turnloop-sandbox-arguments-");
    home = join(base, "home");
    workspace = join(base, "workspace");
    await mkdir(join(workspace, ".git", "hooks"), { recursive: true });
    await writeFile(join(workspace, ".git", "config"), "");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await mkdir(join(home, ".config", "gcloud"), { recursive: true });
    await writeFile(join(home, ".netrc"), "");
    await mkdir(join(base, "dotfiles", "aws"), { recursive: true });
    await symlink(join(base, "dotfiles", "aws"), join(home, ".aws"));
    await mkdir(join(base, "extra"));
    await symlink(workspace, join(base, "workspace-link"));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("danger-full-access is plain bash -c", () => {
    expect(
      sandboxWrap("danger-full-access", { cwd: workspace, home, turnloopHome: home })("ls"),
    ).toEqual({
      file: "bash",
      args: ["-c", "ls"],
    });
  });

  it("workspace-write: base mounts, then writable roots, then .git protections, then hidden places", () => {
    const wrap = sandboxWrap("workspace-write", {
      cwd: join(base, "workspace-link"),
      additionalDirectories: [join(base, "extra"), join(base, "missing"), workspace],
      home,
      turnloopHome: join(home, ".turnloop"),
      hidden: [".ssh", "~/.aws", ".config", ".config/gcloud", ".netrc", ".kube"],
    });
    expect(wrap("make test")).toEqual({
      file: "bwrap",
      args: [
        ...ISOLATION,
        "--unshare-net",
        ...UNIX_SOCKET_FILTER,
        ...["--ro-bind", "/", "/"],
        ...["--bind", workspace, workspace, "--bind", join(base, "extra"), join(base, "extra")],
        ...["--dev", "/dev", "--proc", "/proc", ...SHARED_MEMORY, "--size", GIB, "--tmpfs", "/tmp"],
        ...["--bind", join(workspace, ".git"), join(workspace, ".git")],
        ...["--ro-bind", join(workspace, ".git/hooks"), join(workspace, ".git/hooks")],
        ...["--ro-bind", join(workspace, ".git/config"), join(workspace, ".git/config")],
        ...["--tmpfs", join(home, ".ssh"), "--remount-ro", join(home, ".ssh")],
        ...["--tmpfs", join(base, "dotfiles/aws"), "--remount-ro", join(base, "dotfiles/aws")],
        ...["--tmpfs", join(home, ".config"), "--remount-ro", join(home, ".config")],
        ...["--ro-bind", "/dev/null", join(home, ".netrc")],
        ...DOCKER_SOCKETS,
        ...OFFLINE_ENVIRONMENT,
        ...["--chdir", workspace, "--", "bash", "-c", "make test"],
      ],
      inputs: FILTER_INPUTS,
    });
  });

  it("read-only with the network allowed and a session temporary folder: no writable root", () => {
    const wrap = sandboxWrap("read-only", {
      cwd: workspace,
      home,
      turnloopHome: join(home, ".ssh"),
      hidden: [],
      network: true,
      temporaryDirectory: join(base, "extra"),
      bwrapPath: "/usr/local/bin/bwrap",
      allowUnixSockets: true,
    });
    expect(wrap("ls")).toEqual({
      file: "/usr/local/bin/bwrap",
      args: [
        ...ISOLATION,
        ...BASE_MOUNTS,
        ...["--bind", join(base, "extra"), "/tmp"],
        ...["--tmpfs", join(home, ".ssh"), "--remount-ro", join(home, ".ssh")],
        ...DOCKER_SOCKETS,
        ...ENVIRONMENT,
        ...["--chdir", workspace, "--", "bash", "-c", "ls"],
      ],
    });
  });

  it("the Unix socket filter: 28 instructions of 8 bytes, none on a processor it does not know", async () => {
    const filter = unixSocketFilter("x64");
    expect([
      filter?.length,
      unixSocketFilter("arm64") === filter,
      unixSocketFilter("riscv64"),
    ]).toEqual([28 * 8, true, undefined]);
  });

  it("a workspace inside /tmp is mounted after the private /tmp, so that it is not shadowed", async () => {
    const inTemporary = await mkdtemp(join(tmpdir(), "turnloop-sandbox-workspace-"));
    const real = realpathSync(inTemporary);
    const args = sandboxWrap("workspace-write", { cwd: inTemporary, home, turnloopHome: home })(
      "ls",
    ).args;
    await rm(inTemporary, { recursive: true });
    expect(args.slice(ISOLATION.length + 3, ISOLATION.length + 21)).toEqual([
      ...BASE_MOUNTS,
      ...["--size", GIB, "--tmpfs", "/tmp"],
      ...["--bind", real, real],
    ]);
  });

  it("one wrap remembers resolved places yet sees a place created, retargeted or replaced since the last command", async () => {
    const wrap = sandboxWrap("workspace-write", {
      cwd: workspace,
      home,
      turnloopHome: join(home, ".turnloop"),
      hidden: [".kube", ".docker", "~/.aws"],
    });
    const hiddenOf = (args: readonly string[]) =>
      args.flatMap((arg, index) =>
        (arg === "--tmpfs" || arg === "/dev/null") && args[index + 1]?.startsWith(base) === true
          ? [`${arg === "--tmpfs" ? "folder" : "file"} ${args[index + 1]}`]
          : [],
      );
    const seen = [hiddenOf(wrap("ls").args)];
    await mkdir(join(home, ".kube"));
    await writeFile(join(home, ".docker"), "");
    seen.push(hiddenOf(wrap("ls").args));
    await rm(join(home, ".kube"), { recursive: true });
    await writeFile(join(home, ".kube"), "");
    await rm(join(home, ".aws"));
    await mkdir(join(base, "dotfiles", "aws-new"));
    await symlink(join(base, "dotfiles", "aws-new"), join(home, ".aws"));
    seen.push(hiddenOf(wrap("ls").args));
    await rm(join(home, ".kube"));
    await rm(join(home, ".docker"));
    await rm(join(home, ".aws"));
    await symlink(join(base, "dotfiles", "aws"), join(home, ".aws"));
    expect(seen).toEqual([
      [`folder ${join(base, "dotfiles/aws")}`],
      [
        `folder ${join(home, ".kube")}`,
        `file ${join(home, ".docker")}`,
        `folder ${join(base, "dotfiles/aws")}`,
      ],
      [
        `file ${join(home, ".kube")}`,
        `file ${join(home, ".docker")}`,
        `folder ${join(base, "dotfiles/aws-new")}`,
      ],
    ]);
  });

  it("a workspace that holds HOME's caches keeps them: no private cache is named", () => {
    const args = sandboxWrap("workspace-write", { cwd: base, home, turnloopHome: home })("ls").args;
    expect(args).not.toContain("npm_config_cache");
    expect(args).not.toContain("XDG_CACHE_HOME");
    const readOnly = sandboxWrap("read-only", { cwd: base, home, turnloopHome: home })("ls").args;
    expect(readOnly).toContain("npm_config_cache");
  });

  it("names the policies Codex users know", () => {
    expect(
      ["read-only", "workspace-write", "danger-full-access", "full"].map(isSandboxPolicy),
    ).toEqual([true, true, true, false]);
  });
});

describe("sandbox availability", () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp("/var/tmp/turnloop-sandbox-availability-");
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** A stand-in `bwrap` that fails as a given bubblewrap would. */
  async function failingBwrap(name: string, message: string): Promise<string> {
    const path = join(folder, name);
    await writeFile(path, `#!/bin/sh\necho ${JSON.stringify(message)} >&2\nexit 1\n`);
    await chmod(path, 0o755);
    return path;
  }

  it("says plainly when bubblewrap is missing, with how to install it", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout");
    const timersBefore = timers().length;
    const availability = await sandboxAvailability({ env: { PATH: folder } });
    // No probe timer is left to hold the process (`turnloop config` without bwrap stayed 10 s).
    expect(timers().length).toBe(timersBefore);
    expect(availability).toEqual({
      available: false,
      reason: "bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox.",
      install: "Install it: apt-get install bubblewrap",
    });
    expect(describeSandboxAvailability(availability)).toBe(
      "sandbox unavailable: bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox. Install it: apt-get install bubblewrap.",
    );
  });

  it("tells user namespaces turned off from a bubblewrap too old", async () => {
    const off = await failingBwrap(
      "bwrap-userns-off",
      "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.",
    );
    const old = await failingBwrap("bwrap-old", "bwrap: Unknown option --disable-userns");
    const results = await Promise.all(
      [off, old].map((bwrapPath) =>
        sandboxAvailability({ env: { PATH: "/usr/bin:/bin" }, bwrapPath }),
      ),
    );
    expect(results.map((result) => (result.available ? "available" : result.reason))).toEqual([
      "bubblewrap cannot create a user namespace here (bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.): user namespaces are off.",
      `this bubblewrap (${old}) is older than 0.8.0, which the sandbox needs.`,
    ]);
  });

  it("probes again when a mount went away under bwrap's recursive bind, and gives up after three", async () => {
    const vanished =
      'bwrap: Can\'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/tmp/gone": No such file or directory';
    const counter = join(folder, "attempts");
    // Fails as a vanished mount makes bwrap fail until its third run, then runs `true`.
    const settling = join(folder, "bwrap-settling");
    await writeFile(
      settling,
      `#!/bin/sh\necho x >> ${JSON.stringify(counter)}\n` +
        `[ "$(wc -l < ${JSON.stringify(counter)})" -ge 3 ] && exit 0\n` +
        `echo ${JSON.stringify(vanished)} >&2\nexit 1\n`,
    );
    await chmod(settling, 0o755);
    const always = await failingBwrap("bwrap-vanishing", vanished);
    const env = { PATH: "/usr/bin:/bin" };
    expect(await sandboxAvailability({ env, bwrapPath: settling })).toEqual({ available: true });
    expect((await readFile(counter, "utf8")).split("\n").filter(Boolean)).toHaveLength(3);
    expect(await sandboxAvailability({ env, bwrapPath: always })).toEqual({
      available: false,
      reason: `bubblewrap (${always}) does not run here: ${vanished}.`,
      install: "Check that apt-get install bubblewrap works: bwrap --ro-bind / / true",
    });
  });
});
