#!/usr/bin/env node
/**
 * Listing sessions (issues 21 and 27, item 3): 1,000 sessions, one of them holding a 50 MB
 * prompt, listed through the file store in this process and through `turnloop acp`'s
 * `session/list` (all pages) as an editor asks for it. Run after `npm run build`:
 *
 *   node bench/listing.mjs             1,000 sessions, 50 MB prompt, 5 runs of each figure
 *   node bench/listing.mjs --quick     200 sessions, 5 MB prompt, 3 runs
 *
 * Figures: wall time (median of the runs) and bytes read (`rchar` of /proc/<pid>/io) of a listing
 * whose metadata is current (what every listing after the writer's commit sees), of the first
 * listing of the same logs without metadata (old logs: each is scanned once, then described), and
 * of the ACP round trip with the agent's peak memory (VmHWM). Results go to bench/RESULTS.md
 * between the `keep:listing` markers.
 */

import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { binCommand } from "./bin.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.argv.includes("--quick");
const SESSIONS = quick ? 200 : 1_000;
const BIG_PROMPT_BYTES = (quick ? 5 : 50) * 1024 * 1024;
const RUNS = quick ? 3 : 5;

const { FileSessionStore } = await import(join(root, "dist/session/file-store.js"));
const { createEnvelope } = await import(join(root, "dist/session/envelope.js"));
const { sessionsRoot } = await import(join(root, "dist/session/paths.js"));

const bytesRead = (pid = "self") =>
  Number(/rchar:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1]);
const peakKilobytes = (pid) =>
  Number(/VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const milliseconds = () => Number(process.hrtime.bigint()) / 1e6;
const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** Writes the sessions through the file store, as turnloop would (metadata at each commit). */
async function writeSessions(store, cwd) {
  for (let index = 0; index < SESSIONS; index++) {
    const sessionId = `bench-${String(index).padStart(5, "0")}`;
    const appender = await store.create(sessionId);
    const prompt = index === 0 ? `huge ${"x".repeat(BIG_PROMPT_BYTES)}` : `prompt ${index}`;
    let parent = null;
    for (const input of [
      {
        type: "session.start",
        data: {
          sessionId,
          version: 1,
          producer: "turnloop",
          producerVersion: "0.1.0",
          startTime: new Date().toISOString(),
          cwd,
          model: "openai:bench",
        },
      },
      { type: "user.message", data: { content: prompt, source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "0" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "0", status: "completed", finishReason: "stop" },
      },
    ]) {
      const event = createEnvelope(input, parent);
      appender.append(event);
      parent = event.id;
    }
    await appender.close();
  }
}

async function measureStore(store) {
  const times = [];
  const reads = [];
  let count = 0;
  for (let run = 0; run < RUNS; run++) {
    const readBefore = bytesRead();
    const started = milliseconds();
    count = (await store.list()).length;
    times.push(milliseconds() - started);
    reads.push(bytesRead() - readBefore);
  }
  return { time: median(times), read: median(reads), count };
}

/** `initialize`, then every page of `session/list`, through `turnloop acp`. */
async function measureAcp(home, cwd) {
  // The bin itself, as an editor starts it (bench/bin.mjs).
  const { command, args } = binCommand(join(root, "dist/cli/main.js"), ["acp"]);
  const child = spawn(command, args, {
    cwd,
    env: {
      ...process.env,
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai:bench",
      OPENAI_API_KEY: "k",
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
  });
  let nextId = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const times = [];
  const firstPages = [];
  let count = 0;
  const readBefore = bytesRead(child.pid);
  for (let run = 0; run < RUNS; run++) {
    const started = milliseconds();
    count = 0;
    let cursor;
    do {
      if (count > 0 && firstPages.length === run) {
        firstPages.push(milliseconds() - started);
      }
      const { result, error } = await request(
        "session/list",
        cursor === undefined ? {} : { cursor },
      );
      if (error !== undefined) {
        throw new Error(`session/list: ${error.message}`);
      }
      count += result.sessions.length;
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    times.push(milliseconds() - started);
  }
  const read = (bytesRead(child.pid) - readBefore) / RUNS;
  const peak = peakKilobytes(child.pid) * 1024;
  child.kill();
  return { time: median(times), firstPage: median(firstPages), read, peak, count };
}

const home = await mkdtemp(join(tmpdir(), "turnloop-bench-listing-"));
const cwd = await mkdtemp(join(tmpdir(), "turnloop-bench-listing-cwd-"));
try {
  const load = loadavg()[0].toFixed(2);
  const store = new FileSessionStore(home);
  await writeSessions(store, cwd);
  const current = await measureStore(store);
  const acp = await measureAcp(home, cwd);
  for (const sessionId of readdirSync(sessionsRoot(home))) {
    rmSync(join(sessionsRoot(home), sessionId, "metadata.json"), { force: true });
  }
  const readBefore = bytesRead();
  const started = milliseconds();
  await store.list();
  const oldLogs = { time: milliseconds() - started, read: bytesRead() - readBefore };
  const rows = [
    [
      "store.list(), metadata current (median)",
      `${current.time.toFixed(1)} ms`,
      megabytes(current.read),
      `${current.count} sessions`,
    ],
    [
      "ACP `session/list`, first page (median)",
      `${acp.firstPage.toFixed(1)} ms`,
      "",
      "one request, as an editor's session picker sends it",
    ],
    [
      "ACP `session/list`, all pages (median)",
      `${acp.time.toFixed(1)} ms`,
      megabytes(acp.read),
      `${acp.count} sessions; agent peak RSS ${megabytes(acp.peak)}`,
    ],
    [
      "store.list(), old logs without metadata (first listing)",
      `${oldLogs.time.toFixed(1)} ms`,
      megabytes(oldLogs.read),
      "each log scanned once, then described",
    ],
  ];
  const section = [
    "<!-- keep:listing -->",
    "## Listing sessions (issue 21 item 1, issue 27 item 3)",
    "",
    `Written by \`node bench/listing.mjs${quick ? " --quick" : ""}\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${cpus().length} cores, 1-minute load average ${load}.`,
    `${SESSIONS} sessions written through the file store, one of them with a ${megabytes(BIG_PROMPT_BYTES)} prompt; ${RUNS} runs per figure.`,
    "Bytes read: `rchar` of `/proc/<pid>/io` (every read system call of the process).",
    "",
    "| figure | wall time | bytes read | notes |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "<!-- /keep:listing -->",
  ].join("\n");
  const resultsPath = join(root, "bench/RESULTS.md");
  const results = readFileSync(resultsPath, "utf8");
  const pattern = /<!-- keep:listing -->[\s\S]*<!-- \/keep:listing -->/;
  writeFileSync(
    resultsPath,
    pattern.test(results)
      ? results.replace(pattern, section)
      : `${results.trimEnd()}\n\n${section}\n`,
  );
  process.stdout.write(`${section}\n`);
} finally {
  await rm(home, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
}
