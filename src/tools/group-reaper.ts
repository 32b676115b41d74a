import type { ChildProcess } from "node:child_process";

/**
 * The reaper's script, run by `bash`: it reads `+PID` (a command's process group started) and
 * `-PID` (that group ended) lines from its stdin, and when stdin closes, which the kernel does
 * however turnloop ends (kill -9 included), it SIGKILLs every group still listed and exits.
 */
const REAPER_SCRIPT = `trap '' INT HUP TERM QUIT
declare -A groups
while IFS= read -r line; do
  case "$line" in
    +*) groups[\${line:1}]=1 ;;
    -*) unset "groups[\${line:1}]" ;;
  esac
done
for pid in "\${!groups[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
exit 0`;

/** The one reaper of this process, started with the first command; `null` once it failed. */
let reaper: ChildProcess | null | undefined;

/**
 * Starts this process's reaper unless it runs already; call it before spawning a command, so a
 * command is never running unlisted while the reaper starts. The reaper is a `bash` of its own
 * session holding a pipe from this process: when this process ends in any way (SIGKILL and
 * crashes included, where our own handlers cannot run), the pipe closes and the reaper SIGKILLs
 * every group still listed, grandchildren included, so no command's side effects run on after its
 * call got a result (case 01). It starts with the first command: a run that starts none never
 * starts it. `spawn` is `node:child_process`'s, passed in by the caller that loaded it. A reaper
 * that cannot start leaves commands as they were (killed by our signal handlers only).
 */
export function startGroupReaper(spawn: typeof import("node:child_process").spawn): void {
  if (reaper === undefined) {
    reaper = startReaper(spawn);
  }
}

/** Lists a command's process group (its leader's pid) with the reaper. */
export function watchGroup(pid: number): void {
  if (reaper) {
    write(reaper, `+${pid}\n`);
  }
}

/** Takes a group that ended (or got its last SIGKILL) off the reaper's list. */
export function forgetGroup(pid: number): void {
  if (reaper) {
    write(reaper, `-${pid}\n`);
  }
}

/**
 * The reaper runs nothing but its script: bash's own path, never a `bash` found first on the
 * user's PATH; `--norc --noprofile` and an empty environment, so neither `BASH_ENV`/`ENV` nor the
 * user's `~/.bashrc` runs before it reads its pipe (bash reads `~/.bashrc` even for `-c` when its
 * stdin is a socket, as Node's pipes are, and `SHLVL` is unset or 0: bash's shell.c,
 * `run_startup_files`). Trial 33 found a reaper stuck behind a `pyenv rehash` from such a
 * `~/.bashrc` while the command of a killed worker ran on. `kill`, `read` and `declare` are
 * builtins: no PATH is needed.
 */
function startReaper(spawn: typeof import("node:child_process").spawn): ChildProcess | null {
  try {
    const child = spawn(systemBash(), ["--norc", "--noprofile", "-c", REAPER_SCRIPT], {
      detached: true,
      env: {},
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", () => {
      reaper = null;
    });
    child.on("exit", () => {
      reaper = null;
    });
    child.stdin?.on("error", () => {
      reaper = null;
    });
    // Neither the reaper nor its pipe keeps this process running.
    child.unref();
    const pipe = child.stdin as { unref?: () => void } | null;
    pipe?.unref?.();
    return child;
  } catch {
    return null;
  }
}

/** The system's bash (`/usr/bin/bash`, `/bin/bash`), or `bash` from PATH when neither exists. */
function systemBash(): string {
  const { existsSync } = process.getBuiltinModule("node:fs");
  return SYSTEM_BASH_PATHS.find((path) => existsSync(path)) ?? "bash";
}

const SYSTEM_BASH_PATHS = ["/usr/bin/bash", "/bin/bash"];

function write(child: ChildProcess, line: string): void {
  if (child.stdin?.writable) {
    child.stdin.write(line);
  }
}
