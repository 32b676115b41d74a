// Figure 5c by kind of mapping, in alternated runs of builds (bench/notes/mem42.md).
// Usage:
//   node bench/notes/mem42.mjs run <rounds> <label=tree> [<label=tree> ...] > runs.jsonl
//     Each round runs every tree once, the order turned round by round, each in a fresh process
//     with a fresh home and the node flags of the tree's dist/cli/main.js (as the memory group);
//     MEM42_SAMPLES samples (10 unless set) over 1,000 turns, each sample's memoryDetail() with every anonymous mapping.
//     tree: a worktree with a built dist/ and this session's bench/in-process/; `label=tree@NAME=VALUE`
//     runs that tree's process with one more environment variable.
//   node bench/notes/mem42.mjs summary runs.jsonl
//     Per run: 5b and 5c (least squares over turns 500-1,000, as bench/groups/sessions.mjs until
//     this session), 5c's median slope (the bench's since this session: `medianSlope`), the
//     log's slope, and per kind of mapping and per V8 space the slope and turn 1,000 minus 500.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { medianSlope, slope } from "../groups/sessions.mjs";
import { createScenarioRepository } from "../scenario.mjs";

const turns = 1000;
// More node flags for every run, e.g. MEM42_FLAGS=--no-concurrent-array-buffer-sweeping.
const extraFlags = (process.env.MEM42_FLAGS ?? "").split(" ").filter(Boolean);
// Samples over the session (10: every 100 turns, as the memory group until this session).
const samples = Number(process.env.MEM42_SAMPLES ?? 10);

function nodeFlags(tree) {
  const firstLine = readFileSync(join(tree, "dist", "cli", "main.js"), "utf8").split("\n", 1)[0];
  return (/node((?:\s+-\S+)*)\s*$/.exec(firstLine)?.[1] ?? "").trim().split(/\s+/).filter(Boolean);
}

function runOnce({ label, tree, environment }, round) {
  const temp = mkdtempSync(join(tmpdir(), "mem42-"));
  try {
    const repo = join(temp, "repo");
    createScenarioRepository(repo);
    const options = { dist: join(tree, "dist"), cwd: repo, home: join(temp, "home") };
    const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    const child = spawnSync(
      process.execPath,
      [
        "--expose-gc",
        ...nodeFlags(tree),
        ...extraFlags,
        join(tree, "bench", "in-process.mjs"),
        "memory",
        JSON.stringify({ ...options, turns, samples, mappings: true }),
      ],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, ...environment } },
    );
    if (child.status !== 0) {
      throw new Error(`${label} failed: ${child.stderr}`);
    }
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1));
    return { label, round, load, turns: result.turns, points: result.points };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

const KiB = 1024;

function summary(file) {
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const run = JSON.parse(line);
    const half = run.points.filter((point) => point.turn >= turns / 2);
    const first = half[0];
    const last = half.at(-1);
    const per = (value) => (slope(half, value) / KiB).toFixed(1);
    const change = (value) => ((value(last) - value(first)) / KiB / KiB).toFixed(2);
    const figures = {
      "5b": per((point) => point.heapUsed),
      "5c": per((point) => point.rss),
      "5c median": (medianSlope(half, (point) => point.rss) / KiB).toFixed(1),
      log: per((point) => point.logBytes),
    };
    const kinds = {};
    for (const kind of Object.keys(first.detail.smaps)) {
      if (kind === "anonymousMappings") {
        continue;
      }
      const value = (point) => point.detail.smaps[kind] * KiB;
      kinds[kind] = `${per(value)} KiB/turn, ${change(value)} MiB`;
    }
    const spaces = {};
    for (const space of Object.keys(first.detail.spaces)) {
      const [committed, used, resident] = [0, 1, 2].map(
        (index) => (point) => point.detail.spaces[space][index],
      );
      if (last.detail.spaces[space][0] === 0 && first.detail.spaces[space][0] === 0) {
        continue;
      }
      spaces[space] =
        `committed ${change(committed)}, used ${change(used)}, resident ${change(resident)} MiB`;
    }
    const v8 = {};
    for (const name of Object.keys(first.detail.v8)) {
      v8[name] =
        name === "nativeContexts"
          ? `${first.detail.v8[name]} → ${last.detail.v8[name]}`
          : `${change((point) => point.detail.v8[name])} MiB`;
    }
    const rssByTurn = run.points.map((point) => (point.rss / KiB / KiB).toFixed(1)).join(" ");
    console.log(
      JSON.stringify(
        {
          label: run.label,
          round: run.round,
          load: run.load,
          figures,
          rssByTurn,
          kinds,
          spaces,
          v8,
        },
        null,
        1,
      ),
    );
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "summary") {
  summary(rest[0]);
} else if (mode === "run") {
  const [roundsText, ...treeArguments] = rest;
  const trees = treeArguments.map((argument) => {
    const [name, setting] = argument.split("@");
    const [label, tree] = name.split("=");
    const at = setting?.indexOf("=") ?? -1;
    const environment = at < 0 ? {} : { [setting.slice(0, at)]: setting.slice(at + 1) };
    return { label, tree: resolve(tree), environment };
  });
  for (let round = 0; round < Number(roundsText ?? 2); round++) {
    const order = round % 2 === 0 ? trees : [...trees].reverse();
    for (const tree of order) {
      process.stdout.write(`${JSON.stringify(runOnce(tree, round))}\n`);
    }
  }
} else {
  console.error("usage: node bench/notes/mem42.mjs run <rounds> <label=tree>... | summary <file>");
  process.exitCode = 2;
}
