import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/**
 * A sleep length no other process uses (GNU sleep takes fractions), so the process table can be
 * searched for anything a test started that is still alive.
 */
export function uniqueSleepLength(): string {
  return `97.${process.pid}${Math.floor(Math.random() * 1_000_000)}`;
}

/** Whether `pid` is a live process (a zombie waiting to be reaped counts as dead). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const status = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return status !== "" && !/\) Z /.test(status);
}

/** Live processes whose command line contains `marker`, as `pid: command line`. */
export async function processesWithMarker(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes(marker) && (await isAlive(Number(entry)))) {
      found.push(`${entry}: ${commandLine.replaceAll("\u0000", " ").trim()}`);
    }
  }
  return found;
}

/** Whether `pid` is dead, or dies within `withinMs` (a kill takes effect asynchronously). */
export async function isDeadSoon(pid: number, withinMs = 1_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!(await isAlive(pid))) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !(await isAlive(pid));
}

/**
 * The processes still carrying `marker` once children that ignored SIGTERM have had their SIGKILL
 * (sent a couple of seconds after the stop): an empty list when nothing outlived its command.
 */
export async function survivorsOf(marker: string): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  let left = await processesWithMarker(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await processesWithMarker(marker);
  }
  return left;
}

/** A pid that was just used by a process that has exited (a lock's owner that is gone). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  const pid = child.pid ?? 0;
  await new Promise((resolve) => child.on("exit", resolve));
  return pid;
}
