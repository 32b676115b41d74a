/**
 * Which processes hold a command's output pipes open after the command exited (background
 * children: `sleep 60 &`), read from `/proc` on Linux: the command's ends of the pipes as it was
 * spawned, then the processes of its group that hold one of them. command-process.ts stops them.
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A process stopped because it held a command's output: its pid and command line (cut to 80 characters). */
export interface StoppedProcess {
  pid: number;
  command: string;
}

/**
 * The command's ends of its output pipes as `/proc` names them (`socket:[inode]`: Node's stdio
 * pipes are socket pairs, each end an inode of its own): the leader's descriptors 1 and 2, read
 * as soon as it is spawned, before `bash` has run much of the command; none off Linux or once
 * the leader has gone.
 */
export function outputEnds(leader: number | undefined): Set<string> {
  const names = new Set<string>();
  for (const fd of leader === undefined ? [] : [1, 2]) {
    const link = linkOf(`/proc/${leader}/fd/${fd}`);
    if (link?.startsWith("socket:") || link?.startsWith("pipe:")) {
      names.add(link);
    }
  }
  return names;
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The processes of the group led by `leader` that hold one of `pipes` open (any descriptor), by
 * `/proc` (proc(5): `stat`'s fifth field is the process group); `undefined` when `/proc` cannot be
 * read. When the leader was gone before its ends were read (`pipes` empty: a short command on a
 * loaded machine), the ends are those of the group's processes' descriptors 1 and 2 that are
 * sockets, as Node's pipes are (a shell's own pipes are `pipe:`, a redirect a file). A process
 * whose descriptors cannot be read (another user's) is not counted.
 */
export function pipeHolders(
  leader: number,
  pipes: ReadonlySet<string>,
): StoppedProcess[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const group = entries.filter((entry) => /^\d+$/.test(entry) && groupOf(entry) === leader);
  const ends =
    pipes.size > 0
      ? pipes
      : new Set(
          group
            .flatMap((pid) => [1, 2].flatMap((fd) => linkOf(`/proc/${pid}/fd/${fd}`) ?? []))
            .filter((link) => link.startsWith("socket:")),
        );
  return group.flatMap((pid) =>
    holdsPipe(pid, ends) ? [{ pid: Number(pid), command: commandLine(pid) }] : [],
  );
}

function groupOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the command name in parentheses: state, parent, group.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}

function holdsPipe(pid: string, pipes: ReadonlySet<string>): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      const link = linkOf(`/proc/${pid}/fd/${fd}`);
      return link !== undefined && pipes.has(link);
    });
  } catch {
    return false;
  }
}

/** The command line of `pid`, its arguments space-separated, cut to 80 characters. */
function commandLine(pid: string): string {
  let words: string;
  try {
    words = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "").replaceAll("\0", " ");
  } catch {
    words = "";
  }
  return words.length > 80 ? `${words.slice(0, 79)}…` : words;
}

/**
 * What a command left running once it exited (trial 40 F12: a leftover server or watcher was
 * invisible until something else failed on its port): the processes still in the group led by
 * `leader` (`nohup server > log 2>&1 &`: its output goes elsewhere, so it runs on), and those
 * outside it that hold one of `pipes` (`(setsid server &)`), `stopped` apart (their pids), in pid
 * order. With `groupKilled` (a timeout, a cancel, a SIGKILL: the group gets SIGKILL), only those
 * outside the group count: a `(setsid server &)` escapes the group's kill (trial 47 F1). Costs
 * one `kill(-leader, 0)` when the group has ended; `[]` off Linux.
 */
export function leftRunning(
  leader: number,
  pipes: ReadonlySet<string>,
  stopped: ReadonlySet<number>,
  groupKilled = false,
): StoppedProcess[] {
  const groupLives = !groupKilled && signalsReach(-leader);
  if (!groupLives && pipes.size === 0) {
    return [];
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return entries
    .filter((pid) => !stopped.has(Number(pid)) && Number(pid) !== process.pid && !ended(pid))
    .filter((pid) =>
      groupOf(pid) === leader ? groupLives : pipes.size > 0 && holdsPipe(pid, pipes),
    )
    .map((pid) => ({ pid: Number(pid), command: commandLine(pid) }))
    .sort((left, right) => left.pid - right.pid);
}

/**
 * Those of `processes` that still run now, with their command lines as they are now (one may
 * have run `exec` since it was named: a subshell is its `sleep` by then); one that has ended, or
 * waits to be reaped, is left out. What names processes left running re-checks them with this
 * just before it says so (the call's result, `-p`'s closing summary): one that exited as the
 * command ended, after the scan, is not named (session 41). `[]` off Linux.
 */
export function stillRunning(processes: readonly { pid: number }[]): StoppedProcess[] {
  return processes.flatMap(({ pid }) =>
    ended(String(pid)) ? [] : [{ pid, command: commandLine(String(pid)) }],
  );
}

/** Whether `pid` has ended and waits to be reaped (proc(5): `stat`'s third field, `Z` or `X`). */
function ended(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return true;
  }
}

/** Whether a process (or, negative, a process group) of `pid` exists that signals reach. */
function signalsReach(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
