import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunOutcome } from "../../support/sandbox.js";
import type { SandboxFixture } from "./fixture.js";

/** Written by every write attempt; a host file holding it means the attempt got through. */
export const MARK = "escape-mark";

/**
 * One escape attempt under `workspace-write`, with its control: the same command aimed inside the
 * workspace (or at something the sandbox allows), which must work, so that the attempt fails
 * because of the sandbox and not because the command is broken.
 */
export interface EscapeAttempt {
  name: string;
  attempt: string;
  control: string;
  /** Whether the attempt got through, judged from the host (or from what it printed). */
  escaped(outcome: RunOutcome): boolean;
  /** Whether the control did what it claims. */
  worked(outcome: RunOutcome): boolean;
  /** The control runs with the network allowed (for the network attempts). */
  controlWithNetwork?: boolean;
  /**
   * Both runs allow Unix sockets (`sandbox.allowUnixSockets`): the control must reach its socket,
   * and an attempt marked so shows that the mounts or the network namespace stop it even then.
   */
  withUnixSockets?: boolean;
  /** Only the control allows Unix sockets (for an attempt the seccomp filter alone stops). */
  controlWithUnixSockets?: boolean;
  /** Environment added to both runs (e.g. a provider key a careless caller left in). */
  env?: Record<string, string>;
}

/** What the table needs besides the fixture: servers and IPC endpoints started by the test. */
export interface EscapeTargets {
  httpPort: number;
  /** A DNS query for `turnloop.test`, as hex. */
  dnsQueryHex: string;
  dnsPort: number;
  /** Unix sockets of the fake agent; each greets a client with the secret. */
  agentSocketInTurnloopHome: string;
  agentSocketInTemporary: string;
  agentAbstractSocket: string;
  /** A socket with the same greeting inside the workspace (the control). */
  workspaceSocket: string;
  /** A host service's socket outside the workspace, visible in the sandbox (a database's, say). */
  hostServiceSocket: string;
  /** FIFOs the host holds open for reading; `received(path)` tells what reached it. */
  fifoInTurnloopHome: string;
  fifoInTemporary: string;
  workspaceFifo: string;
  received(fifo: string): string;
  /** `ptrace`'s system call number on this machine. */
  ptraceSyscall: number;
}

export function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function contains(path: string, text: string): boolean {
  try {
    return readFileSync(path, "utf8").includes(text);
  } catch {
    return false;
  }
}

/**
 * A write aimed at `outside` (must not land) and, as the control, at `inside` (must land); the
 * files checked on the host are the targets themselves unless `landing` names them.
 */
function write(
  name: string,
  command: (target: string) => string,
  outside: string,
  inside: string,
  landing: { outside: string; inside: string } = { outside, inside },
) {
  return {
    name,
    attempt: command(outside),
    control: command(inside),
    escaped: () => contains(landing.outside, MARK),
    worked: () => contains(landing.inside, MARK),
  };
}

/** A read of a secret (must not show it) and, as the control, of a copy inside the workspace. */
function read(name: string, command: (path: string) => string, secret: string, copy: string) {
  return {
    name,
    attempt: command(secret),
    control: command(copy),
    escaped: (outcome: RunOutcome) => outcome.output.includes(secretOf(copy)),
    worked: (outcome: RunOutcome) => outcome.output.includes(secretOf(copy)),
  };
}

function secretOf(copy: string): string {
  return /secret-[0-9a-f-]{36}/.exec(readFileSync(copy, "utf8"))?.[0] ?? "no secret";
}

/** Attempts to write outside the workspace, or where later code runs unconfined. */
export function writeAttempts(f: SandboxFixture, agentPid: number): EscapeAttempt[] {
  const out = (file: string) => join(f.outside, file);
  const ws = (file: string) => join(f.workspace, file);
  const echo = (target: string) => `echo ${MARK} > ${quote(target)}`;
  return [
    write("write outside via ..", echo, "../outside/dotdot.txt", "src/../dotdot.txt", {
      outside: out("dotdot.txt"),
      inside: ws("dotdot.txt"),
    }),
    write("write to an absolute path outside", echo, out("absolute.txt"), ws("absolute.txt")),
    write(
      "cd outside, then write",
      (t) => `cd ${quote(t)} && ${echo("cd.txt")}`,
      f.outside,
      ws("src"),
      { outside: out("cd.txt"), inside: ws("src/cd.txt") },
    ),
    write(
      "symbolic link made inside, to a file outside",
      (t) => `ln -sfn ${quote(t)} made-link && ${echo("made-link")}`,
      out("symlinked.txt"),
      ws("symlinked.txt"),
    ),
    write(
      "symbolic link made inside, to a folder outside",
      (t) => `ln -sfn ${quote(t)} made-folder-link && ${echo("made-folder-link/through.txt")}`,
      f.outside,
      ws("src"),
      { outside: out("through.txt"), inside: ws("src/through.txt") },
    ),
    {
      name: "symbolic link already in the workspace, to outside",
      attempt: echo("link-to-outside"),
      control: echo("link-to-inside"),
      escaped: () => contains(out("linked.txt"), MARK),
      worked: () => contains(ws("linked.txt"), MARK),
    },
    write(
      "hard link to a file outside",
      (t) => `ln ${quote(t)} hard-link && ${echo("hard-link")}`,
      out("existing.txt"),
      ws("existing.txt"),
    ),
    write(
      "move a file out",
      (t) => `echo ${MARK} > moving.txt && mv moving.txt ${quote(t)}`,
      out("moved.txt"),
      ws("src/moved.txt"),
    ),
    write("/proc/self/root", (t) => echo(`/proc/self/root${t}`), out("root.txt"), ws("root.txt")),
    {
      name: "/proc/<agent pid>/cwd",
      attempt: echo(`/proc/${agentPid}/cwd/agent-cwd.txt`),
      control: echo("/proc/self/cwd/agent-cwd.txt"),
      escaped: () => contains(out("agent-cwd.txt"), MARK),
      worked: () => contains(ws("agent-cwd.txt"), MARK),
    },
    {
      name: "/proc/<agent pid>/root",
      attempt: echo(`/proc/${agentPid}/root${out("agent-root.txt")}`),
      control: echo(`/proc/self/root${ws("agent-root.txt")}`),
      escaped: () => contains(out("agent-root.txt"), MARK),
      worked: () => contains(ws("agent-root.txt"), MARK),
    },
    {
      name: "/dev/shm reaches the host's",
      attempt: echo(`/dev/shm/${f.secret}`),
      control: `${echo("/dev/shm/private")} && cat /dev/shm/private`,
      escaped: () => existsSync(`/dev/shm/${f.secret}`),
      worked: (outcome) => outcome.output.includes(MARK),
    },
    {
      name: "~/.bashrc",
      attempt: `echo ${MARK} >> ~/.bashrc`,
      control: `echo ${MARK} >> .bashrc`,
      escaped: () => contains(join(f.home, ".bashrc"), MARK),
      worked: () => contains(ws(".bashrc"), MARK),
    },
    write(
      "~/.ssh/authorized_keys",
      echo,
      join(f.home, ".ssh", "authorized_keys"),
      ws("authorized_keys"),
    ),
    write(
      "the session log in TURNLOOP_HOME",
      (t) => `echo ${MARK} >> ${quote(t)}`,
      join(f.turnloopHome, "session-state", "session-1", "events.jsonl"),
      ws("events.jsonl"),
    ),
    write("a git hook", echo, ws(".git/hooks/pre-commit"), ws("src/pre-commit")),
    write(
      "a submodule's git hook",
      echo,
      ws(".git/modules/lib/parser/hooks/post-checkout"),
      ws("src/post-checkout"),
    ),
    write(
      "a submodule's git config",
      (t) => `echo ${MARK} >> ${quote(t)}`,
      ws(".git/modules/lib/parser/config"),
      ws("src/submodule-config"),
    ),
    write(
      "git's config",
      (t) => `echo ${MARK} >> ${quote(t)}`,
      ws(".git/config"),
      ws("src/config"),
    ),
    write(
      "replace .git/hooks by renaming it",
      (t) =>
        `mkdir -p ${quote(t)} && mv ${quote(t)} ${quote(`${t}-old`)} && mkdir ${quote(t)} && ${echo(`${t}/post-checkout`)}`,
      ws(".git/hooks"),
      ws("src/hooks"),
      { outside: ws(".git/hooks/post-checkout"), inside: ws("src/hooks/post-checkout") },
    ),
    {
      name: "replace .git/config by renaming over it",
      attempt: `echo ${MARK} > new-config && mv new-config .git/config`,
      control: `echo ${MARK} > new-config && mv new-config src/config-renamed`,
      escaped: () => contains(ws(".git/config"), MARK),
      worked: () => contains(ws("src/config-renamed"), MARK),
    },
    {
      name: "mount: remount .git/hooks writable",
      attempt: `mount -o remount,rw,bind .git/hooks; ${echo(".git/hooks/post-merge")}`,
      control: echo("src/post-merge"),
      escaped: () => contains(ws(".git/hooks/post-merge"), MARK),
      worked: () => contains(ws("src/post-merge"), MARK),
    },
    write(
      "mount: remount a folder outside writable",
      (t) => `mount -o remount,rw,bind ${quote(join(t, ".."))}; ${echo(t)}`,
      out("mounted.txt"),
      ws("src/mounted.txt"),
    ),
    {
      name: "unshare: a new user namespace to remount / writable",
      attempt: `unshare -Urm sh -c ${quote(`mount -o remount,rw,bind /; ${echo(out("unshared.txt"))}`)}`,
      control: `sh -c ${quote(echo(ws("unshared.txt")))}`,
      escaped: () => contains(out("unshared.txt"), MARK),
      worked: () => contains(ws("unshared.txt"), MARK),
    },
    {
      name: "chroot",
      attempt: `chroot / sh -c ${quote(echo(out("chroot.txt")))}`,
      control: `sh -c ${quote(echo(ws("chroot.txt")))}`,
      escaped: () => contains(out("chroot.txt"), MARK),
      worked: () => contains(ws("chroot.txt"), MARK),
    },
  ];
}

/** Attempts to read the user's secrets. */
export function readAttempts(f: SandboxFixture, copies: Record<string, string>): EscapeAttempt[] {
  const home = (path: string) => join(f.home, path);
  const copy = (path: string) => copies[path] ?? `no copy of ${path}`;
  const cat = (path: string) => `cat ${quote(path)}`;
  const credentialReads = Object.keys(copies).map((path) =>
    read(`read ~/${path}`, cat, home(path), copy(path)),
  );
  const key = ".ssh/id_ed25519";
  return [
    ...credentialReads,
    read(
      "read the session log",
      cat,
      join(f.turnloopHome, "session-state/session-1/events.jsonl"),
      copy(key),
    ),
    read(
      "read a key through a link made inside",
      (p) => `ln -sfn ${quote(p)} key-link && cat key-link`,
      home(key),
      copy(key),
    ),
    read(
      "read a key through /proc/self/root",
      (p) => cat(`/proc/self/root${p}`),
      home(key),
      copy(key),
    ),
    {
      ...read("search HOME for secrets", (p) => `grep -r secret- ${quote(p)}`, f.home, copy(key)),
      control: `grep -r secret- ${quote(join(copy(key), ".."))}`,
    },
  ];
}
