#!/usr/bin/env node
/**
 * Paired start-up figure of the interactive face (issue 26): spawn → input box drawn, for two or
 * more builds of the CLI in turn, each round beside the floor (`node -e` printing the same line in
 * the same pseudo-terminal). Run it after `npm run build`, with a copy of an earlier `dist/` (a
 * `package.json` and a `node_modules` link beside its `cli/`):
 *
 *   node bench/box-paired.mjs 15 before=/tmp/before-dist/cli/main.js after=dist/cli/main.js
 *
 * The builds' order rotates each round; round 0 warms the disk cache and is left out. For each
 * build: the wall time from `spawn()` to the first output holding `Enter send` (the status line
 * under the box), its ratio to the floor (of the medians, and the median of each round's ratio),
 * and the CLI's own CPU time (user + system, `process.cpuUsage()`) when it writes that line, which
 * a loaded machine inflates far less than the wall time. `BOX_CONFIG=<json>` writes a user config
 * file first. Not part of `npm run bench`; bench/notes/targets.md ("box lane") has its figures.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { percentile } from "./statistics.mjs";

const rounds = Number(process.argv[2]);
const builds = process.argv.slice(3).map((argument) => {
  const [label, path] = argument.split("=");
  return { label, path: resolve(path ?? "") };
});
const home = mkdtempSync(join(tmpdir(), "turnloop-box-paired-home-"));
const cwd = mkdtempSync(join(tmpdir(), "turnloop-box-paired-repo-"));
const cpuLog = join(home, "cpu.log");
/** Loaded with `--import`: writes the CPU time used when the status line is first written. */
const marker = join(home, "cpu-marker.mjs");
writeFileSync(
  marker,
  `import { writeFileSync } from "node:fs";
const write = process.stdout.write;
let drawn = false;
process.stdout.write = function markedWrite(chunk, ...rest) {
  if (!drawn && String(chunk).includes("Enter send")) {
    drawn = true;
    const cpu = process.cpuUsage();
    writeFileSync(${JSON.stringify(cpuLog)}, String((cpu.user + cpu.system) / 1000));
  }
  return write.call(this, chunk, ...rest);
};
`,
);
if (process.env.BOX_CONFIG) {
  writeFileSync(join(home, "config.json"), process.env.BOX_CONFIG);
}
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TERM: "xterm-256color",
  TURNLOOP_HOME: home,
  TURNLOOP_MODEL: "openai-compatible:bench-model",
  // Never asked: the box is drawn before any model request, and the run ends with Ctrl-D.
  TURNLOOP_BASE_URL: "http://127.0.0.1:9/v1",
};

/** Milliseconds from spawning `command` in an 80×24 pseudo-terminal to its `Enter send`. */
function untilDrawn(command) {
  return new Promise((resolveDrawn, reject) => {
    const started = performance.now();
    const child = spawn("script", ["-qfec", `stty cols 80 rows 24; exec ${command}`, "/dev/null"], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    let drawnAfter;
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      output += chunk;
      if (drawnAfter === undefined && output.includes("Enter send")) {
        drawnAfter = performance.now() - started;
        child.stdin.write("\u0004");
        setTimeout(() => child.kill("SIGTERM"), 3000).unref();
      }
    });
    child.on("close", () =>
      drawnAfter === undefined
        ? reject(new Error(`no input box; output:\n${output.slice(-1000)}`))
        : resolveDrawn(drawnAfter),
    );
  });
}

const floor = { wall: [], cpu: [] };
const figures = new Map(builds.map(({ label }) => [label, { wall: [], cpu: [] }]));
const loadBefore = loadavg()[0]?.toFixed(2);
const floorScript = `console.log("Enter send"); const c = process.cpuUsage(); require("fs").writeFileSync(${JSON.stringify(cpuLog)}, String((c.user + c.system) / 1000))`;
for (let round = 0; round <= rounds; round++) {
  const floorWall = await untilDrawn(`${process.execPath} -e '${floorScript}'`);
  if (round > 0) {
    floor.wall.push(floorWall);
    floor.cpu.push(Number(readFileSync(cpuLog, "utf8")));
  }
  for (let index = 0; index < builds.length; index++) {
    const build = builds[(index + round) % builds.length];
    rmSync(cpuLog, { force: true });
    const wall = await untilDrawn(`${process.execPath} --import=${marker} ${build.path}`);
    if (round > 0) {
      figures.get(build.label).wall.push(wall);
      figures.get(build.label).cpu.push(Number(readFileSync(cpuLog, "utf8")));
    }
  }
}
rmSync(home, { recursive: true, force: true });
rmSync(cwd, { recursive: true, force: true });

const median = (values) => percentile(values, 0.5);
const spread = (values) =>
  `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
process.stdout.write(
  `${rounds} rounds (+1 warm-up), 1-minute load ${loadBefore} → ${loadavg()[0]?.toFixed(2)}\n` +
    `floor: wall ${spread(floor.wall)}, CPU ${spread(floor.cpu)}\n`,
);
for (const [label, { wall, cpu }] of figures) {
  const pairedRatio = median(wall.map((value, round) => value / (floor.wall[round] ?? value)));
  process.stdout.write(
    `${label}: wall ${spread(wall)}, ×${(median(wall) / median(floor.wall)).toFixed(2)} the floor ` +
      `(paired ×${pairedRatio.toFixed(2)}); CPU at the box ${spread(cpu)}, ` +
      `×${(median(cpu) / median(floor.cpu)).toFixed(2)} the floor's\n`,
  );
}
