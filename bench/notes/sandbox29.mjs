// Where a sandboxed command's cost goes (bench/notes/sandbox29.md, issue 26). Two parts:
//
//   node bench/notes/sandbox29.mjs bwrap [runs]            bwrap's CPU per argument list
//   node bench/notes/sandbox29.mjs runner <dist> <dist> [runs]   turnloop's own CPU per command
//
// bwrap: `bash -c true` unconfined and under bwrap with argument lists from the least sandbox to
// the whole `workspace-write` list of bench/sandbox.mjs (every default hidden place present, as
// the folder or file it is in a home; and, as that bench made them before, all folders but 4), each
// run under `perf stat -e task-clock` (CPU ms of every process the line starts), the lists in
// turn, alternating their order; prints the p50 and the range of each.
// runner: the CPU time of this Node process (`process.cpuUsage`: the children's is not in it)
// for one `runner.run("true")`, for a SandboxedRunner and a ProcessRunner of each built tree
// (`dist` folders: the one before a change and the one after), the four in turn; prints the p50
// of each and of the paired differences. Needs a built tree (`npm run build`).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { percentile } from "../statistics.mjs";

const [part = "bwrap", ...rest] = process.argv.slice(2);
const base = mkdtempSync("/var/tmp/turnloop-sandbox29-");
process.on("exit", () => rmSync(base, { recursive: true, force: true }));
const workspace = join(base, "workspace");
const home = join(base, "home");
mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
writeFileSync(join(workspace, ".git", "config"), "[core]\n");
const firstDist = resolve(part === "runner" ? (rest[0] ?? "dist") : "dist");
const sandbox = await import(join(firstDist, "tools/sandbox/index.js"));
/** The default hidden places that are folders in a home; the others are files (bench/sandbox.mjs). */
const HIDDEN_FOLDERS = new Set([
  ...[".ssh", ".aws", ".config/gcloud", ".azure", ".docker", ".kube", ".gnupg", ".config/gh"],
  ...[".claude", ".codex", ".terraform.d", ".turnloop"],
]);
/** The files of bench/sandbox.mjs before this session: every other place was made a folder. */
const FILES_BEFORE = new Set([".netrc", ".npmrc", ".pypirc", ".git-credentials"]);
/** A home at `folder` holding every default hidden place, a folder where `isFolder` says. */
function makeHome(folder, isFolder) {
  for (const place of [...sandbox.DEFAULT_HIDDEN_PATHS, ".turnloop"]) {
    if (isFolder(place)) {
      mkdirSync(join(folder, place), { recursive: true });
    } else {
      mkdirSync(join(folder, place, ".."), { recursive: true });
      writeFileSync(join(folder, place), "");
    }
  }
}
makeHome(home, (place) => HIDDEN_FOLDERS.has(place));
const homeOfFolders = join(base, "home-of-folders");
makeHome(homeOfFolders, (place) => !FILES_BEFORE.has(place));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
const settings = { cwd: workspace, home, turnloopHome: join(home, ".turnloop") };
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const range = (values) =>
  `${percentile(values, 0.5).toFixed(2)} ms [${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}]`;

/** CPU ms (perf task-clock) of one command line with its inputs on descriptors 3, …. */
function cpuOnce(line) {
  return new Promise((resolvePromise, reject) => {
    const inputs = line.inputs ?? [];
    const child = spawn(
      "perf",
      ["stat", "-x,", "-e", "task-clock", "--", line.file, ...line.args],
      {
        cwd: workspace,
        env,
        stdio: ["ignore", "ignore", "pipe", ...inputs.map(() => "pipe")],
      },
    );
    for (const [index, input] of inputs.entries()) {
      child.stdio[3 + index].end(input);
    }
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const counted = /^([\d.]+),msec,task-clock/m.exec(text);
      return code === 0 && counted !== null
        ? resolvePromise(Number(counted[1]))
        : reject(new Error(`perf stat ${line.file} exited ${code}: ${text.trim()}`));
    });
  });
}

/** The whole list without the options (with their values) that `drop` picks. */
function without(args, drop) {
  const kept = [];
  for (let index = 0; index < args.length; index++) {
    const taken = drop(args[index], args[index + 1]);
    if (taken === 0) {
      kept.push(args[index]);
    } else {
      index += taken - 1;
    }
  }
  return kept;
}

const NAMESPACES = [
  ...["--die-with-parent", "--new-session", "--unshare-user", "--disable-userns"],
  ...["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"],
  ...["--cap-drop", "ALL"],
];
const MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
const COMMAND = ["--", "bash", "-c", "true"];

async function bwrapPart(runs) {
  const whole = sandbox.sandboxWrap("workspace-write", settings)("true");
  const inHome = (path) => path?.startsWith(`${home}/`) === true;
  const lines = {
    unconfined: { file: "bash", args: ["-c", "true"] },
    "least bwrap (user namespace, / read-only, /dev)": {
      file: "bwrap",
      args: ["--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", ...COMMAND],
    },
    "+ /proc": { file: "bwrap", args: ["--unshare-user", ...MOUNTS, ...COMMAND] },
    "+ the policy's namespaces, no network": {
      file: "bwrap",
      args: [...NAMESPACES, ...MOUNTS, ...COMMAND],
    },
    "+ --unshare-net": {
      file: "bwrap",
      args: [...NAMESPACES, "--unshare-net", ...MOUNTS, ...COMMAND],
    },
    "the whole list without the hidden places": {
      file: "bwrap",
      inputs: whole.inputs,
      args: without(whole.args, (option, value) =>
        (option === "--tmpfs" || option === "--remount-ro") && inHome(value)
          ? 2
          : option === "--ro-bind" && value === "/dev/null"
            ? 3
            : 0,
      ),
    },
    "the whole list without the seccomp filter": {
      file: "bwrap",
      args: without(whole.args, (option) => (option === "--seccomp" ? 2 : 0)),
    },
    "the whole list (workspace-write)": whole,
    "the whole list, hidden places all folders but 4": sandbox.sandboxWrap("workspace-write", {
      ...settings,
      home: homeOfFolders,
      turnloopHome: join(homeOfFolders, ".turnloop"),
    })("true"),
  };
  const names = Object.keys(lines);
  const counted = Object.fromEntries(names.map((name) => [name, []]));
  const loadBefore = load();
  for (let run = 0; run < runs + 2; run++) {
    for (const name of run % 2 === 0 ? names : [...names].reverse()) {
      const milliseconds = await cpuOnce(lines[name]);
      if (run >= 2) {
        counted[name].push(milliseconds);
      }
    }
  }
  process.stdout.write(
    `bwrap CPU (perf task-clock), ${runs} runs each, load ${loadBefore} → ${load()}\n`,
  );
  process.stdout.write(`  (the whole list: ${whole.args.length} arguments)\n`);
  for (const name of names) {
    process.stdout.write(`  ${name.padEnd(50)} ${range(counted[name])}\n`);
  }
}

/** CPU ms of this process for one `runner.run("true")` (the child's CPU is not in it). */
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
  if (result.exitCode !== 0) {
    throw new Error(`runner: ${JSON.stringify(result)}`);
  }
  return (used.user + used.system) / 1000;
}

async function runnerPart(dists, runs) {
  const runners = {};
  for (const [index, dist] of dists.entries()) {
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
    `runner CPU of this process per command, ${runs} rounds, load ${loadBefore} → ${load()}\n`,
  );
  for (const [index, dist] of dists.entries()) {
    process.stdout.write(`  ${index + 1}: ${dist}\n`);
  }
  for (const name of names) {
    process.stdout.write(`  ${name.padEnd(40)} ${range(counted[name])}\n`);
  }
  for (let index = 1; index <= dists.length; index++) {
    const over = paired(`sandboxed ${index}`, `plain ${index}`);
    process.stdout.write(
      `  ${`sandboxed ${index} − plain ${index} (paired)`.padEnd(40)} ${range(over)}\n`,
    );
  }
  if (dists.length === 2) {
    process.stdout.write(
      `  ${"sandboxed 2 − sandboxed 1 (paired)".padEnd(40)} ${range(paired("sandboxed 2", "sandboxed 1"))}\n`,
    );
  }
}

if (part === "bwrap") {
  await bwrapPart(Number(rest[0] ?? 30));
} else if (part === "runner") {
  const dists = rest.filter((word) => !/^\d+$/.test(word)).map((dist) => resolve(dist));
  await runnerPart(dists.slice(0, 2), Number(rest.find((word) => /^\d+$/.test(word)) ?? 40));
} else {
  process.stderr.write(
    "usage: node bench/notes/sandbox29.mjs bwrap [runs] | runner <dist> [<dist>] [runs]\n",
  );
  process.exit(2);
}
