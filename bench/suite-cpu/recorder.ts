/**
 * A vitest set-up file (bench/suite-cpu/vitest.config.ts) that appends one JSON line per test file
 * to `$SUITE_CPU_LOG`: the file, the CPU its worker process spent from the file's start to its
 * last `afterAll` (user and sys, seconds, its own and its waited-for children's, from
 * /proc/self/stat: utime, stime, cutime, cstime), and how many child processes it spawned
 * (`ChildProcess.prototype.spawn` calls: spawn, exec, execFile, fork; not `spawnSync`, not a
 * child's own children, whose CPU is counted in the child's once it waited for them).
 */

import { ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";

/** Clock ticks per second (`getconf CLK_TCK`; 100 on Linux). */
const TICKS = 100;

/** [user, sys] seconds of this process and its waited-for children. */
function cpu(): [number, number] {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The fields after the command's closing parenthesis; utime is the 14th field of the line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const at = (field: number) => Number(fields[field - 3]);
  return [(at(14) + at(16)) / TICKS, (at(15) + at(17)) / TICKS];
}

const counter = globalThis as { suiteCpuSpawns?: number };
if (counter.suiteCpuSpawns === undefined) {
  counter.suiteCpuSpawns = 0;
  // Node's own method (lib/internal/child_process.js), which every asynchronous spawn goes through;
  // absent from the typings.
  const prototype = ChildProcess.prototype as unknown as {
    spawn: (this: ChildProcess, ...args: unknown[]) => unknown;
  };
  const spawn = prototype.spawn;
  prototype.spawn = function counted(this: ChildProcess, ...args: unknown[]) {
    counter.suiteCpuSpawns = (counter.suiteCpuSpawns ?? 0) + 1;
    return spawn.apply(this, args);
  };
}
const spawnsAtStart = counter.suiteCpuSpawns;
const [userAtStart, sysAtStart] = cpu();

// biome-ignore lint/correctness/noEmptyPattern: vitest reads an afterAll's context from its first parameter.
afterAll(({}, suite) => {
  const [user, sys] = cpu();
  const log = process.env.SUITE_CPU_LOG;
  if (log === undefined) {
    return;
  }
  const line = {
    file: "filepath" in suite ? suite.filepath : suite.name,
    user: Number((user - userAtStart).toFixed(2)),
    sys: Number((sys - sysAtStart).toFixed(2)),
    spawns: (counter.suiteCpuSpawns ?? 0) - spawnsAtStart,
  };
  appendFileSync(log, `${JSON.stringify(line)}\n`);
});
