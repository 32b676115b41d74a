#!/usr/bin/env node
/**
 * Session 35 (bench/notes/sandbox35.md): what the hidden places cost a sandboxed command, counted
 * and in CPU time, for bench/sandbox.mjs's two homes (typical; every default hidden place present)
 * and for the ways of hiding them that the lane measured, each a variant of the list
 * `sandboxWrap("workspace-write")` builds (a git workspace, network off). After `npm run build`:
 *
 *   node bench/notes/sandbox35.mjs counts [command]          strace counts of every list
 *   node bench/notes/sandbox35.mjs pairs A B [pairs] [command]
 *       CPU ms (`perf stat -e task-clock`, every process) of list B less list A, paired and
 *       alternating: p50 [min–max]
 *
 * Lists: unconfined, least (bwrap's least sandbox), namespaces (the policy's namespaces, `/`,
 * `/dev`, `/proc`), typical, typical-unhidden (no hidden place mounted), every, every-bind-null
 * (`--bind /dev/null` over files, not `--ro-bind`), every-empty-folder (an empty host folder bound
 * read-only over folders, not `--tmpfs` + `--remount-ro`), every-grouped (a folder whose entries,
 * two or more, are all hidden places hidden as one, never the home), every-grouped-all (the same
 * with one entry too, so that groups make groups: `.config` as a whole).
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DEFAULT_HIDDEN_PATHS, sandboxWrap } from "../../dist/tools/sandbox/index.js";

const [mode = "counts", ...rest] = process.argv.slice(2);
const COMMAND = (mode === "pairs" ? rest[3] : rest[0]) ?? "true";
const base = mkdtempSync("/var/tmp/turnloop-sandbox35-");
process.on("exit", () => rmSync(base, { recursive: true, force: true }));
const workspace = join(base, "workspace");
mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
writeFileSync(join(workspace, ".git", "config"), "[core]\n");
const empty = join(base, "empty");
mkdirSync(empty);
/** bench/sandbox.mjs's HIDDEN_FOLDERS. */
const FOLDERS = new Set([
  ...[".ssh", ".aws", ".config/gcloud", ".azure", ".docker", ".kube", ".gnupg", ".config/gh"],
  ...[".config/glab-cli", ".claude", ".codex", ".gemini", ".copilot", ".config/github-copilot"],
  ...[".terraform.d", ".config/sops", ".config/rclone", ".oci", ".config/doctl", ".fly"],
  ...[".password-store", ".local/share/keyrings", ".config/op", ".config/Bitwarden CLI"],
  ...[".config/google-chrome", ".config/chromium", ".config/BraveSoftware"],
  ...[".config/microsoft-edge", ".mozilla", ".turnloop"],
]);

/** A home holding `entries` (folders as FOLDERS says, files otherwise) and its list. */
function homeWith(name, entries) {
  const home = join(base, name);
  for (const entry of [...entries, ".turnloop"]) {
    const path = join(home, entry);
    mkdirSync(FOLDERS.has(entry) ? path : dirname(path), { recursive: true });
    if (!FOLDERS.has(entry)) {
      writeFileSync(path, "");
    }
  }
  const turnloopHome = join(home, ".turnloop");
  return {
    home,
    line: sandboxWrap("workspace-write", { cwd: workspace, home, turnloopHome })(COMMAND),
  };
}

const typical = homeWith("typical", [
  ".ssh",
  ".aws",
  ".config/gh",
  ".npmrc",
  ".docker/config.json",
  ".gitconfig",
]);
const every = homeWith("every", DEFAULT_HIDDEN_PATHS);

/** The list's hidden places in `home` (path → whether a folder) and where they sit in it. */
function hiddenOf({ home, line }) {
  const { args } = line;
  const places = new Map();
  let first = -1;
  let last = -1;
  for (let index = 1; index < args.length; index++) {
    const path = args[index] ?? "";
    const folder = args[index - 1] === "--tmpfs";
    if (path.startsWith(`${home}/`) && (folder || args[index - 1] === "/dev/null")) {
      places.set(path, folder);
      first = first === -1 ? index - (folder ? 1 : 2) : first;
      last = index + (folder ? 2 : 0);
    }
  }
  return { places, before: args.slice(0, first), after: args.slice(last + 1) };
}

/** The list with its hidden places mounted by `mount(path, folder)`. */
function remounted(built, places, mount) {
  const { before, after } = hiddenOf(built);
  return [...before, ...[...places].flatMap(([path, folder]) => mount(path, folder)), ...after];
}

const usual = (path, folder) =>
  folder ? ["--tmpfs", path, "--remount-ro", path] : ["--ro-bind", "/dev/null", path];

/** `places` with each folder (not the home) whose entries, at least `least`, are all places, as one. */
function grouped(places, home, least) {
  const result = new Map(places);
  for (let changed = true; changed; ) {
    changed = false;
    for (const parent of new Set([...result.keys()].map(dirname))) {
      const names = parent === home || home.startsWith(`${parent}/`) ? [] : readdirSync(parent);
      if (names.length >= least && names.every((name) => result.has(join(parent, name)))) {
        for (const name of names) {
          result.delete(join(parent, name));
        }
        result.set(parent, true);
        changed = true;
      }
    }
  }
  return result;
}

const everyPlaces = hiddenOf(every).places;
const namespaces = [
  ...["--die-with-parent", "--new-session", "--unshare-user", "--disable-userns"],
  ...["--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"],
  ...["--cap-drop", "ALL", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev"],
  ...["--proc", "/proc", "--", "bash", "-c", COMMAND],
];
const LISTS = {
  unconfined: { file: "bash", args: ["-c", COMMAND] },
  least: {
    file: "bwrap",
    args: ["--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--", "bash", "-c", COMMAND],
  },
  namespaces: { file: "bwrap", args: namespaces },
  typical: typical.line,
  "typical-unhidden": { ...typical.line, args: remounted(typical, new Map(), usual) },
  every: every.line,
  "every-bind-null": {
    ...every.line,
    args: remounted(every, everyPlaces, (path, folder) =>
      folder ? usual(path, folder) : ["--bind", "/dev/null", path],
    ),
  },
  "every-empty-folder": {
    ...every.line,
    args: remounted(every, everyPlaces, (path, folder) =>
      folder ? ["--ro-bind", empty, path] : usual(path, folder),
    ),
  },
  "every-grouped": {
    ...every.line,
    args: remounted(every, grouped(everyPlaces, every.home, 2), usual),
  },
  "every-grouped-all": {
    ...every.line,
    args: remounted(every, grouped(everyPlaces, every.home, 1), usual),
  },
};

/** `argv` run with the list's inputs (the seccomp filter) on descriptors 3 and up. */
function spawnList(argv, list, stderr) {
  const inputs = list.inputs ?? [];
  const child = spawn(argv[0], argv.slice(1), {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: every.home, LANG: "C.UTF-8" },
    stdio: ["ignore", "ignore", stderr, ...inputs.map(() => "pipe")],
  });
  for (const [index, input] of inputs.entries()) {
    child.stdio[3 + index].end(input);
  }
  return child;
}

/** CPU ms of every process `list` starts. */
function cpuOnce(list) {
  return new Promise((resolve, reject) => {
    const perf = ["perf", "stat", "-x,", "-e", "task-clock", "--", list.file, ...list.args];
    const child = spawnList(perf, list, "pipe");
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    child.on("close", (code) => {
      const cpu = /^([\d.]+),msec,task-clock/m.exec(text);
      return code === 0 && cpu ? resolve(Number(cpu[1])) : reject(new Error(text));
    });
  });
}

/** Counts of one run of `list` under `strace -f`: system calls, mounts, mount-table reads. */
function countsOf(name, list) {
  const trace = join(base, `${name}.strace`);
  return new Promise((resolve) => {
    const argv = ["strace", "-f", "-y", "-o", trace, list.file, ...list.args];
    spawnList(argv, list, "ignore").on("close", () => {
      const lines = spawnSync("cat", [trace], { encoding: "utf8" }).stdout.split("\n");
      const count = (pattern) => lines.filter((line) => pattern.test(line)).length;
      const bytes = lines
        .filter((line) => /^\d+ +read\(\d+<[^>]*mountinfo>/.test(line))
        .reduce((sum, line) => sum + Number(/= (\d+)$/.exec(line)?.[1] ?? 0), 0);
      resolve(
        `| ${name} | ${count(/^\d+ +\w+\(/)} | ${count(/ mount\(/)} | ${count(/MS_REMOUNT/)} | ` +
          `${count(/openat\(.*mountinfo/)} | ${bytes.toLocaleString("en")} |`,
      );
    });
  });
}

if (mode === "pairs") {
  const [a = "typical", b = "every", pairs = "30"] = rest;
  const differences = [];
  for (let pair = 0; pair < Number(pairs) + 2; pair++) {
    const order = pair % 2 === 0 ? [a, b] : [b, a];
    const cpu = {};
    for (const name of order) {
      cpu[name] = await cpuOnce(LISTS[name]);
    }
    if (pair >= 2) {
      differences.push(cpu[b] - cpu[a]);
    }
  }
  differences.sort((x, y) => x - y);
  const p50 = differences[Math.floor(differences.length / 2)] ?? Number.NaN;
  process.stdout.write(
    `${COMMAND}: CPU ms, ${b} − ${a}: p50 ${p50.toFixed(2)} [${differences[0]?.toFixed(1)}–${differences.at(-1)?.toFixed(1)}] (${differences.length} pairs)\n`,
  );
} else {
  process.stdout.write(
    "| list | system calls | `mount` | of them remounts | mount-table opens | mount-table bytes read |\n|---|---|---|---|---|---|\n",
  );
  for (const [name, list] of Object.entries(LISTS)) {
    process.stdout.write(`${await countsOf(name, list)}\n`);
  }
}
