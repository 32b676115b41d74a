#!/usr/bin/env node
/**
 * Session 32 (bench/notes/sandbox32.md): CPU cost of the exit trap that counts the processes a
 * sandboxed command left running (src/tools/sandbox/left-running.ts). Builds bench/sandbox.mjs's
 * list (`workspace-write`, a git workspace, every default hidden place present), then runs
 * `perf stat -e task-clock -- bwrap <list> bash -c CMD` with and without the trap's arguments,
 * paired and alternating; prints p50 [min–max] of the differences. After `npm run build`:
 *
 *   node bench/notes/sandbox32.mjs [pairs]
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_HIDDEN_PATHS, sandboxWrap } from "../../dist/tools/sandbox/index.js";
import { EXIT_TRAP_PATH, leftRunningScript } from "../../dist/tools/sandbox/left-running.js";

const PAIRS = Number(process.argv[2] ?? 30);
const base = mkdtempSync("/var/tmp/turnloop-sandbox32-");
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
const wrap = sandboxWrap("workspace-write", {
  cwd: workspace,
  home,
  turnloopHome: join(home, ".turnloop"),
});

/** The runner's arguments for the trap (sandboxed-runner.ts `withReports`), the script on fd 4. */
function withTrap(args) {
  const last = args.lastIndexOf("--chdir");
  const trap = ["--file", "4", EXIT_TRAP_PATH, "--setenv", "BASH_ENV", EXIT_TRAP_PATH];
  return [...args.slice(0, last), ...trap, ...args.slice(last)];
}

/** CPU ms of every process `bwrap args` starts; `inputs` on fds 3…, a report pipe after them. */
function cpuOnce(args, inputs) {
  return new Promise((resolve, reject) => {
    const child = spawn("perf", ["stat", "-x,", "-e", "task-clock", "--", "bwrap", ...args], {
      cwd: workspace,
      stdio: ["ignore", "ignore", "pipe", ...inputs.map(() => "pipe"), "pipe"],
    });
    for (const [index, input] of inputs.entries()) {
      child.stdio[3 + index].end(input);
    }
    child.stdio[3 + inputs.length].resume();
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    child.on("close", (code) => {
      const counted = /^([\d.]+),msec/m.exec(text);
      return code === 0 && counted ? resolve(Number(counted[1])) : reject(new Error(text));
    });
  });
}

for (const command of ["true", "git --version"]) {
  const line = wrap(command);
  const script = new TextEncoder().encode(leftRunningScript(5, undefined));
  const plain = () => cpuOnce(line.args, line.inputs);
  const trapped = () => cpuOnce(withTrap(line.args), [...line.inputs, script]);
  const differences = [];
  for (let pair = 0; pair < PAIRS + 2; pair++) {
    const first = pair % 2 === 0;
    const a = first ? await plain() : await trapped();
    const b = first ? await trapped() : await plain();
    if (pair >= 2) {
      differences.push(first ? b - a : a - b);
    }
  }
  differences.sort((x, y) => x - y);
  const p50 = differences[Math.floor(differences.length / 2)];
  process.stdout.write(
    `${command}: trap − none, CPU ms p50 ${p50.toFixed(2)} [${differences[0].toFixed(2)}–${differences.at(-1).toFixed(2)}] (${differences.length} pairs)\n`,
  );
}
