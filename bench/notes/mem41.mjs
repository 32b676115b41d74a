// Figure 5c in alternated pairs of builds (bench/notes/mem41.md).
// Usage: node bench/notes/mem41.mjs <rounds> <samples> <label=tree> <label=tree> [...]
//   tree: a worktree with a built dist/ and this session's bench/in-process/ (memory-detail.mjs
//   and the memory benchmark that records it); each round runs every tree once, the order turned
//   round by round (A B, B A, ...), each in a fresh process with a fresh home, the node flags of
//   the tree's dist/cli/main.js, as bench/groups/sessions.mjs runs the memory group.
// Prints one JSON line per run: label, round, the load, 5b's and 5c's slopes (bytes/turn over the
// second half, as the bench), the log's, and the points (every sample's memoryDetail()).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { slope } from "../groups/sessions.mjs";
import { createScenarioRepository } from "../scenario.mjs";

const [roundsText, samplesText, ...treeArguments] = process.argv.slice(2);
const rounds = Number(roundsText ?? 4);
const samples = Number(samplesText ?? 10);
const trees = treeArguments.map((argument) => {
  const [label, tree] = argument.split("=");
  return { label, tree: resolve(tree) };
});
const turns = 1000;
// More node flags for every run, e.g. MEM41_FLAGS=--no-concurrent-array-buffer-sweeping.
const extraFlags = (process.env.MEM41_FLAGS ?? "").split(" ").filter(Boolean);

function nodeFlags(tree) {
  const firstLine = readFileSync(join(tree, "dist", "cli", "main.js"), "utf8").split("\n", 1)[0];
  return (/node((?:\s+-\S+)*)\s*$/.exec(firstLine)?.[1] ?? "").trim().split(/\s+/).filter(Boolean);
}

function runOnce({ label, tree }, round) {
  const temp = mkdtempSync(join(tmpdir(), "mem41-"));
  try {
    const repo = join(temp, "repo");
    createScenarioRepository(repo);
    const options = {
      dist: join(tree, "dist"),
      cwd: repo,
      home: join(temp, "home"),
      turns,
      samples,
    };
    const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    const child = spawnSync(
      process.execPath,
      [
        "--expose-gc",
        ...nodeFlags(tree),
        ...extraFlags,
        join(tree, "bench", "in-process.mjs"),
        "memory",
        JSON.stringify(options),
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    if (child.status !== 0) {
      throw new Error(`${label} failed: ${child.stderr}`);
    }
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1));
    const secondHalf = result.points.filter((point) => point.turn >= turns / 2);
    return {
      label,
      round,
      load,
      turns: result.turns,
      heapPerTurn: slope(secondHalf, (point) => point.heapUsed),
      rssPerTurn: slope(secondHalf, (point) => point.rss),
      logPerTurn: slope(secondHalf, (point) => point.logBytes),
      points: result.points,
    };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? trees : [...trees].reverse();
  for (const tree of order) {
    process.stdout.write(`${JSON.stringify(runOnce(tree, round))}\n`);
  }
}
