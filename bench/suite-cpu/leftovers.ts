/**
 * A vitest set-up file (bench/suite-cpu/leftovers.config.ts) that appends one JSON line per test
 * file to `$SUITE_LEFTOVERS_LOG`: what the file left in its worker after its last `afterAll`, which
 * the next file of a shared worker (`isolate: false`) would live beside: the worker's child
 * processes still running (pid and command line, from /proc) and Node's active resources
 * (`process.getActiveResourcesInfo()`: timers, sockets, servers, child process handles), less
 * those the worker had before the file.
 */

import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";

/** The command lines of this process's running children (/proc/<pid>/task/<tid>/children). */
function children(): string[] {
  const found: string[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    let list = "";
    try {
      list = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8");
    } catch {
      continue;
    }
    for (const pid of list.split(" ").filter((entry) => entry !== "")) {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
        found.push(`${pid} ${command.slice(0, 160)}`);
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return found;
}

/** How many of each active resource type there are. */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

const before = resources();

// biome-ignore lint/correctness/noEmptyPattern: vitest reads an afterAll's context from its first parameter.
afterAll(async ({}, suite) => {
  const log = process.env.SUITE_LEFTOVERS_LOG;
  if (log === undefined) {
    return;
  }
  // What ends at once (a socket closing, an exit being reported) is no leftover.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = resources();
  const grown = [...after].flatMap(([name, count]) =>
    count > (before.get(name) ?? 0) ? [`${name} +${count - (before.get(name) ?? 0)}`] : [],
  );
  const line = {
    file: "filepath" in suite ? suite.filepath : suite.name,
    children: children(),
    resources: grown,
  };
  appendFileSync(log, `${JSON.stringify(line)}\n`);
});
