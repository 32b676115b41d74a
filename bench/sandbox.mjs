#!/usr/bin/env node
/**
 * Overhead of the bubblewrap sandbox per command (issue 23; target: p50 ≤ 15 ms over unconfined).
 * Run after `npm run build`:
 *
 *   node bench/sandbox.mjs            100 rounds per command
 *   node bench/sandbox.mjs --runs 20  fewer
 *   node bench/sandbox.mjs --print    the tables on stdout only; bench/RESULTS.md is not written
 *
 * Each round spawns the command as a runner does (own process group, stdin closed, stdout and
 * stderr piped and read to the end) once unconfined (`bash -c`) and once under `workspace-write`
 * (`sandboxWrap`, network off, a git repository as the workspace) with each of two homes, in an
 * order that turns from round to round, and times spawn → close: a typical home (a few hidden
 * places exist: the target is judged by it) and one where every default hidden place exists, each
 * as the folder or file it is in a home, and hidden. A row's overhead is the median of the
 * differences of its sandboxed runs from their rounds' unconfined runs.
 * Two floors tell bubblewrap's own cost from the policy's:
 * the least sandbox (a user namespace, `/` read-only) and the policy's namespaces without its
 * mounts. Building the argv is also timed in CPU time (`process.cpuUsage`), which the machine's
 * load does not inflate. The commands' own CPU time cannot be read from the kernel's accounting of
 * our children (bubblewrap does not reap the pid namespace's first process, so its time is not
 * added to ours); where `perf` works, as many pairs again run under `perf stat -e task-clock`,
 * which counts every process a command line starts, the pid namespace's included, and give the
 * CPU overhead: the median of the paired differences of CPU milliseconds. On a loaded machine the
 * wall overhead grows with the load (every process start waits for a core) far more than the CPU
 * overhead does. Writes a `<!-- keep:sandbox -->` section at the end of bench/RESULTS.md (not with
 * `--print`).
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_HIDDEN_PATHS,
  sandboxAvailability,
  sandboxWrap,
} from "../dist/tools/sandbox/index.js";
import { percentile } from "./statistics.mjs";

const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag === -1 ? 100 : Number(process.argv[runsFlag + 1]);
const COMMANDS = ["true", "ls -la .git && git --version"];
/** Whether the tables go to stdout only, bench/RESULTS.md left as it is. */
const PRINT_ONLY = process.argv.includes("--print");

const availability = await sandboxAvailability({ env: { PATH: process.env.PATH ?? "" } });
if (!availability.available) {
  process.stderr.write(`${availability.reason} ${availability.install}\n`);
  process.exit(1);
}

const base = mkdtempSync("/var/tmp/turnloop-sandbox-bench-");
const workspace = join(base, "workspace");
process.on("exit", () => rmSync(base, { recursive: true, force: true }));
mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
writeFileSync(join(workspace, ".git", "config"), "[core]\n");
/**
 * The default hidden places that are folders in a home (`.ssh`, the clouds', tools' and
 * browsers' own folders, `TURNLOOP_HOME`); the others are files there (`.netrc`, `.pgpass`,
 * shells' histories, `.cargo/credentials.toml` …), made as files: a hidden folder costs bwrap two
 * mounts (an empty memory file system made read-only), a file one (`/dev/null` bound over it),
 * each of them one read of the whole mount table.
 */
const HIDDEN_FOLDERS = new Set([
  ...[".ssh", ".aws", ".config/gcloud", ".azure", ".docker", ".kube", ".gnupg", ".config/gh"],
  ...[".config/glab-cli", ".claude", ".codex", ".gemini", ".copilot", ".config/github-copilot"],
  ...[".terraform.d", ".config/sops", ".config/rclone", ".oci", ".config/doctl", ".fly"],
  ...[".password-store", ".local/share/keyrings", ".config/op", ".config/Bitwarden CLI"],
  ...[".config/google-chrome", ".config/chromium", ".config/BraveSoftware"],
  ...[".config/microsoft-edge", ".mozilla", ".turnloop"],
]);
/**
 * The two homes the sandboxed commands run with (each a folder or file per entry, as
 * {@link HIDDEN_FOLDERS} tells): a typical developer's, where a few hidden places exist (an SSH
 * key, cloud and GitHub CLI credentials, an npm token, Docker's login, turnloop's own sessions)
 * beside a file that is not hidden (`.gitconfig`), and one where every default hidden place
 * exists, the most the default list can cost.
 */
const HOMES = [
  {
    name: "typical",
    entries: [".ssh", ".aws", ".config/gh", ".npmrc", ".docker/config.json", ".gitconfig"],
  },
  { name: "every hidden place", entries: DEFAULT_HIDDEN_PATHS },
].map(({ name, entries }, index) => {
  const home = join(base, `home-${index}`);
  for (const entry of [...entries, ".turnloop"]) {
    if (HIDDEN_FOLDERS.has(entry)) {
      mkdirSync(join(home, entry), { recursive: true });
    } else {
      mkdirSync(join(home, entry, ".."), { recursive: true });
      writeFileSync(join(home, entry), "");
    }
  }
  const wrap = sandboxWrap("workspace-write", {
    cwd: workspace,
    home,
    turnloopHome: join(home, ".turnloop"),
  });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
  return { name, home, env, wrap: (command) => ({ ...wrap(command), env }) };
});
const [typicalHome] = HOMES;
const unconfinedWrap = sandboxWrap("danger-full-access", {
  cwd: workspace,
  home: typicalHome.home,
  turnloopHome: typicalHome.home,
});
const unconfined = (command) => ({ ...unconfinedWrap(command), env: typicalHome.env });

/**
 * How many hidden places `line` mounts something over (an empty memory file system over a
 * folder, `/dev/null` over a file) in `home`.
 */
function hiddenMounts(line, home) {
  return line.args.filter(
    (argument, index) =>
      argument.startsWith(`${home}/`) &&
      (line.args[index - 1] === "--tmpfs" || line.args[index - 1] === "/dev/null"),
  ).length;
}

/**
 * The floor: bubblewrap's least sandbox (a user namespace, `/` read-only), to tell what bwrap's
 * own process start costs on this machine from what the policy adds.
 */
const floor = (command) => ({
  file: "bwrap",
  args: ["--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--", "bash", "-c", command],
  env: typicalHome.env,
});

/** The namespaces every sandboxed command gets (network off) around `/`, `/dev`, `/proc`: no policy mounts. */
const namespaces = (command) => ({
  file: "bwrap",
  args: [
    ...["--die-with-parent", "--new-session", "--unshare-user", "--disable-userns"],
    ...["--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"],
    ...["--cap-drop", "ALL", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev"],
    ...["--proc", "/proc", "--", "bash", "-c", command],
  ],
  env: typicalHome.env,
});

/** Milliseconds from spawn to close of one command line, its output read to the end. */
function timeOnce(line) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const inputs = line.inputs ?? [];
    const child = spawn(line.file, line.args, {
      cwd: workspace,
      env: line.env,
      detached: true,
      // bwrap reads the seccomp filter (and any other input) on descriptors 3 and up.
      stdio: ["ignore", "pipe", "pipe", ...inputs.map(() => "pipe")],
    });
    for (const [index, input] of inputs.entries()) {
      child.stdio[3 + index].end(input);
    }
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${line.file} exited ${code}`)),
    );
  });
}

/** What `perf stat -x,` prints for the task-clock of the processes it ran: milliseconds. */
const TASK_CLOCK = /^([\d.]+),msec,task-clock/m;

/** Whether `perf stat` can count this user's processes here (installed, allowed, counting). */
const perfWorks = TASK_CLOCK.test(
  spawnSync("perf", ["stat", "-x,", "-e", "task-clock", "--", "true"], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  }).stderr ?? "",
);

/**
 * CPU milliseconds (task-clock) of every process that one command line starts, as `perf stat`
 * counts them: the counters are inherited at each fork, the pid namespace's processes included.
 */
function cpuOnce(line) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "perf",
      ["stat", "-x,", "-e", "task-clock", "--", line.file, ...line.args],
      {
        cwd: workspace,
        env: line.env,
        stdio: ["ignore", "ignore", "pipe", ...(line.inputs ?? []).map(() => "pipe")],
      },
    );
    for (const [index, input] of (line.inputs ?? []).entries()) {
      child.stdio[3 + index].end(input);
    }
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const counted = TASK_CLOCK.exec(text);
      return code === 0 && counted !== null
        ? resolve(Number(counted[1]))
        : reject(new Error(`perf stat ${line.file} exited ${code}: ${text.trim()}`));
    });
  });
}

/**
 * Paired CPU milliseconds of `command` unconfined and sandboxed by `wrap`, alternating which runs
 * first.
 */
async function cpuPairs(command, wrap) {
  const plain = [];
  const sandboxed = [];
  for (let run = 0; run < RUNS + 3; run++) {
    const first = run % 2 === 0;
    const a = await cpuOnce(first ? unconfined(command) : wrap(command));
    const b = await cpuOnce(first ? wrap(command) : unconfined(command));
    if (run >= 3) {
      plain.push(first ? a : b);
      sandboxed.push(first ? b : a);
    }
  }
  return { plain, sandboxed, differences: sandboxed.map((ms, index) => ms - (plain[index] ?? 0)) };
}

/**
 * Wall milliseconds of one round of `command`: unconfined and in each home (in an order that
 * turns with `run`, so that none always runs first), the floor, the namespaces only; and the
 * wall and CPU time of building each home's argv.
 */
async function round(command, run) {
  const built = HOMES.map(({ wrap }) => {
    const builtAt = performance.now();
    const cpuAt = process.cpuUsage();
    const line = wrap(command);
    const cpu = process.cpuUsage(cpuAt);
    return { line, wall: performance.now() - builtAt, cpu: (cpu.user + cpu.system) / 1000 };
  });
  const lines = [unconfined(command), ...built.map(({ line }) => line)];
  const times = new Array(lines.length);
  for (let step = 0; step < lines.length; step++) {
    const index = (run + step) % lines.length;
    times[index] = await timeOnce(lines[index]);
  }
  const [plain, ...sandboxed] = times;
  return {
    plain,
    sandboxed,
    built,
    floor: await timeOnce(floor(command)),
    namespaces: await timeOnce(namespaces(command)),
  };
}

/** The rows of both tables for `command`: one per home. */
async function measure(command) {
  const rounds = [];
  for (let run = 0; run < RUNS + 3; run++) {
    const measured = await round(command, run);
    if (run >= 3) {
      rounds.push(measured); // the first three are warm-up rounds, not counted
    }
  }
  const ms = (value) => `${value.toFixed(1)} ms`;
  const µs = (values) => `${(percentile(values, 0.5) * 1000).toFixed(0)} µs`;
  const rows = [];
  const cpuRows = [];
  for (const [index, home] of HOMES.entries()) {
    const label = `| \`${command}\` | ${home.name} (${hiddenMounts(home.wrap(command), home.home)}) |`;
    const differences = rounds.map((each) => (each.sandboxed[index] ?? 0) - each.plain);
    const overFloor = rounds.map((each) => (each.sandboxed[index] ?? 0) - each.floor);
    const p50 = percentile(differences, 0.5);
    const median = (pick) => ms(percentile(rounds.map(pick), 0.5));
    rows.push(
      `${label} ${median((each) => each.plain)} | ${median((each) => each.sandboxed[index] ?? 0)} | ` +
        `**${ms(p50)}** | ${ms(percentile(differences, 0.9))} | ${median((each) => each.floor)} | ` +
        `${median((each) => each.namespaces)} | ${ms(percentile(overFloor, 0.5))} | ` +
        `${µs(rounds.map((each) => each.built[index]?.wall ?? 0))} | ` +
        `${µs(rounds.map((each) => each.built[index]?.cpu ?? 0))} | ${p50 <= 15 ? "met" : "not met"} |`,
    );
    if (perfWorks) {
      const cpu = await cpuPairs(command, home.wrap);
      cpuRows.push(
        `${label} ${ms(percentile(cpu.plain, 0.5))} | ${ms(percentile(cpu.sandboxed, 0.5))} | ` +
          `**${ms(percentile(cpu.differences, 0.5))}** | ${ms(percentile(cpu.differences, 0.9))} |`,
      );
    }
  }
  return { rows, cpuRows };
}

const loadBefore = loadavg()[0] ?? 0;
const cpuRows = [];
const rows = [];
for (const command of COMMANDS) {
  const measured = await measure(command);
  rows.push(...measured.rows);
  cpuRows.push(...measured.cpuRows);
}

const bwrapVersion = await new Promise((resolve) => {
  const child = spawn("bwrap", ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let text = "";
  child.stdout.on("data", (chunk) => {
    text += chunk;
  });
  child.on("close", () => resolve(text.trim()));
});
const table = [
  "| command | home (hidden places mounted) | unconfined p50 | sandboxed p50 | overhead p50 (paired) | overhead p90 | floor: least bwrap, p50 | the policy's namespaces only, p50 | policy over the floor p50 | building the argv p50 (wall) | building the argv p50 (CPU) | target ≤ 15 ms (wall p50) |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ...rows,
].join("\n");
const cpuTable = perfWorks
  ? [
      "| command (CPU time, every process) | home (hidden places mounted) | unconfined p50 | sandboxed p50 | CPU overhead p50 (paired) | CPU overhead p90 |",
      "|---|---|---|---|---|---|",
      ...cpuRows,
    ].join("\n")
  : "CPU time: not measured (`perf stat` does not work here).";
process.stdout.write(`${table}\n\n${cpuTable}\n`);
if (PRINT_ONLY) {
  process.exit(0);
}
const section = [
  "<!-- keep:sandbox -->",
  "## Sandbox overhead per command (issue 23)",
  "",
  `Written by \`npm run build && node bench/sandbox.mjs\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC;`,
  `${bwrapVersion}, Node ${process.version}, ${cpus().length} cores, 1-minute load average ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}`,
  "(a shared machine: every process start waits its turn for a core, so wall times grow with the",
  "load; the floor column shows what bubblewrap's own process start costs under the same load).",
  `${RUNS} rounds per command after 3 warm-up rounds, the unconfined and the two sandboxed runs of a`,
  "round in an order that turns from round to round. Each run spawns the command as a runner does",
  "(own process group, pipes read to the end) and times spawn → close; the overhead is each",
  "sandboxed run less its round's unconfined run. Sandboxed = `workspace-write` with the network",
  "off, a git workspace (hooks and config re-mounted read-only) and one of two homes, its hidden",
  "places hidden (folders and files as in a home): typical (`~/.ssh`, `~/.aws`, `~/.config/gh`,",
  "`~/.npmrc`, `~/.docker/config.json`, turnloop's `~/.turnloop`, and a `~/.gitconfig` that is not",
  "hidden), the home as users have it, which the target is judged by; and every hidden place (every",
  "default hidden place exists), the most the default list costs: each hidden place is one more",
  "mount, and bubblewrap reads the whole mount table at each. Floor: `bwrap",
  "--unshare-user --ro-bind / / --dev /dev` around the same command, bubblewrap's least sandbox;",
  "namespaces only: the policy's namespaces and options, `/` read-only, `/dev`, `/proc`, no other",
  "mount. Building the argv: one runner's (what each place resolves to is remembered between",
  "commands; each place is still `lstat`ed per command); its CPU time does not grow with the load.",
  "",
  table,
  "",
  `CPU time (\`perf stat -e task-clock\`, which counts the pid namespace's processes too; ${RUNS}`,
  "pairs per command and home after 3 warm-up pairs, alternating; the load inflates it far less",
  "than wall time):",
  "",
  cpuTable,
  "<!-- /keep:sandbox -->",
].join("\n");
const path = new URL("RESULTS.md", import.meta.url);
const current = readFileSync(path, "utf8");
const pattern = /<!-- keep:sandbox -->[\s\S]*?<!-- \/keep:sandbox -->/;
writeFileSync(
  path,
  pattern.test(current)
    ? current.replace(pattern, section)
    : `${current.trimEnd()}\n\n${section}\n`,
);
