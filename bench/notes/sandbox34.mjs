#!/usr/bin/env node
/**
 * Session 34 (bench/notes/sandbox34.md): CPU and page faults of one sandboxed command with the
 * shell as the pid namespace's first process (`--as-pid-1`, the list as built now) and with
 * bwrap's reaper as pid 1 (the same list without `--as-pid-1`, as before). Builds bench/sandbox.mjs's
 * list (`workspace-write`, a git workspace, every default hidden place present), then runs
 * `perf stat -e task-clock,page-faults -- bwrap <list> bash -c CMD` for each, paired and
 * alternating; prints p50 [min–max] of the differences. After `npm run build`:
 *
 *   node bench/notes/sandbox34.mjs [pairs] [command]
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_HIDDEN_PATHS, sandboxWrap } from "../../dist/tools/sandbox/index.js";

const PAIRS = Number(process.argv[2] ?? 30);
const COMMAND = process.argv[3] ?? "true";
const base = mkdtempSync("/var/tmp/turnloop-sandbox34-");
process.on("exit", () => rmSync(base, { recursive: true, force: true }));
const workspace = join(base, "workspace");
const home = join(base, "home");
mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
writeFileSync(join(workspace, ".git", "config"), "[core]\n");
const FOLDERS = new Set([
  ...[".ssh", ".aws", ".config/gcloud", ".azure", ".docker", ".kube", ".gnupg", ".config/gh"],
  ...[".claude", ".codex", ".terraform.d", ".turnloop"],
]);
for (const place of [...DEFAULT_HIDDEN_PATHS, ".turnloop"]) {
  if (FOLDERS.has(place)) {
    mkdirSync(join(home, place), { recursive: true });
  } else {
    mkdirSync(join(home, place, ".."), { recursive: true });
    writeFileSync(join(home, place), "");
  }
}
const line = sandboxWrap("workspace-write", {
  cwd: workspace,
  home,
  turnloopHome: join(home, ".turnloop"),
})(COMMAND);
const lists = {
  "shell as pid 1": line.args,
  "bwrap's reaper as pid 1": line.args.filter((argument) => argument !== "--as-pid-1"),
};

/** CPU ms and page faults of every process `bwrap args` starts, the filter on fd 3. */
function countOnce(args) {
  return new Promise((resolve, reject) => {
    const perf = ["stat", "-x,", "-e", "task-clock,page-faults", "--", "bwrap", ...args];
    const child = spawn("perf", perf, {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    child.stdio[3].end(line.inputs[0]);
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    child.on("close", (code) => {
      const cpu = /^([\d.]+),msec,task-clock/m.exec(text);
      const faults = /^(\d+),,page-faults/m.exec(text);
      return code === 0 && cpu && faults
        ? resolve({ cpu: Number(cpu[1]), faults: Number(faults[1]) })
        : reject(new Error(text));
    });
  });
}

const [after, before] = Object.keys(lists);
const differences = { cpu: [], faults: [] };
for (let pair = 0; pair < PAIRS + 2; pair++) {
  const order = pair % 2 === 0 ? [before, after] : [after, before];
  const counted = {};
  for (const name of order) {
    counted[name] = await countOnce(lists[name]);
  }
  if (pair >= 2) {
    differences.cpu.push(counted[after].cpu - counted[before].cpu);
    differences.faults.push(counted[after].faults - counted[before].faults);
  }
}
for (const [what, values] of Object.entries(differences)) {
  values.sort((x, y) => x - y);
  const p50 = values[Math.floor(values.length / 2)];
  process.stdout.write(
    `${COMMAND}: ${what}, ${after} − ${before}: p50 ${p50.toFixed(2)} [${values[0].toFixed(2)}–${values.at(-1).toFixed(2)}] (${values.length} pairs)\n`,
  );
}
