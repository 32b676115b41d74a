// turnloop's own CPU per sandboxed command in a real workspace (bench/notes/sandbox31.md):
//
//   node bench/notes/sandbox31.mjs <workspace> <dist> [<dist>] [runs]
//
// For each built tree (`dist` folders: before a change and after), a SandboxedRunner under
// `workspace-write` and a ProcessRunner run `true` with <workspace> as the cwd, the runners in
// turn, alternating their order, 3 warm-up rounds; prints the p50 [min–max] of this Node
// process's CPU ms per command (`process.cpuUsage`: the walk, the mounts' list, the guards; the
// children's CPU is not in it) and of the paired differences. Needs a built tree (`npm run build`).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { percentile } from "../statistics.mjs";

const words = process.argv.slice(2);
const runs = Number(words.find((word) => /^\d+$/.test(word)) ?? 40);
const [workspace, ...dists] = words.filter((word) => !/^\d+$/.test(word)).map((w) => resolve(w));
if (workspace === undefined || dists.length === 0) {
  process.stderr.write(
    "usage: node bench/notes/sandbox31.mjs <workspace> <dist> [<dist>] [runs]\n",
  );
  process.exit(2);
}
const base = mkdtempSync("/var/tmp/turnloop-sandbox31-");
process.on("exit", () => rmSync(base, { recursive: true, force: true }));
const home = join(base, "home");
const settings = { home, turnloopHome: join(home, ".turnloop") };
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
const load = () => loadavg()[0].toFixed(1);
const range = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${percentile(sorted, 0.5).toFixed(2)} [${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)}]`;
};

async function runnerCpu(runner) {
  const request = {
    cwd: workspace,
    env,
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    savePath: join(base, "output.txt"),
    secrets: [],
  };
  const before = process.cpuUsage();
  const result = await runner.run("true", request);
  const used = process.cpuUsage(before);
  if (result.exitCode !== 0 || result.sandboxLimit !== undefined) {
    throw new Error(`runner: ${JSON.stringify(result)}`);
  }
  return (used.user + used.system) / 1000;
}

const runners = {};
for (const [index, dist] of dists.slice(0, 2).entries()) {
  const { SandboxedRunner } = await import(join(dist, "tools/sandbox/index.js"));
  const { ProcessRunner } = await import(join(dist, "tools/process-runner.js"));
  runners[`sandboxed ${index + 1}`] = new SandboxedRunner("workspace-write", settings);
  runners[`plain ${index + 1}`] = new ProcessRunner({ description: "plain" });
}
const names = Object.keys(runners);
const counted = Object.fromEntries(names.map((name) => [name, []]));
const loadBefore = load();
for (let run = 0; run < runs + 3; run++) {
  for (const name of run % 2 === 0 ? names : [...names].reverse()) {
    const milliseconds = await runnerCpu(runners[name]);
    if (run >= 3) {
      counted[name].push(milliseconds);
    }
  }
}
const paired = (a, b) => counted[a].map((value, index) => value - (counted[b][index] ?? 0));
process.stdout.write(
  `${workspace}: CPU ms of this process per command, ${runs} rounds, load ${loadBefore} → ${load()}\n`,
);
for (const [index, dist] of dists.slice(0, 2).entries()) {
  process.stdout.write(`  ${index + 1}: ${dist}\n`);
}
for (const name of names) {
  process.stdout.write(`  ${name.padEnd(40)} ${range(counted[name])}\n`);
}
for (let index = 1; index <= Math.min(dists.length, 2); index++) {
  const over = paired(`sandboxed ${index}`, `plain ${index}`);
  process.stdout.write(
    `  ${`sandboxed ${index} − plain ${index} (paired)`.padEnd(40)} ${range(over)}\n`,
  );
}
if (dists.length >= 2) {
  const difference = paired("sandboxed 2", "sandboxed 1");
  process.stdout.write(
    `  ${"sandboxed 2 − sandboxed 1 (paired)".padEnd(40)} ${range(difference)}\n`,
  );
}
