// Session 39 (bench/notes/server39.md): does spreading 7d's sessions over several event loops pay
// on this machine? A prototype of the shape only, not of turnloop:
//   node bench/notes/server39-loops.mjs [--sessions 1000] [--workers 0|N] [--work-ms 3.4]
//     [--relay 20]
// The fake model runs as 7d's does (a worker thread of this process, first token after
// 250–1250 ms, three requests a session: two `view` calls, then text). A child process stands in
// for the server: its sessions' loops post each request with node:http and, between an answer
// and the next request, spend `--work-ms` of CPU (in three slices with a `setImmediate` between,
// as an awaited step does) and relay `--relay` session events per request to the connection:
// each event JSON-encoded and framed by the child's main thread, and what one turn of its event
// loop encoded written to /dev/null at once (as protocol/framed-writer.ts groups writes).
// `--workers 0`: every loop on the child's main thread (today's server); `--workers N`: the
// loops spread over N worker threads, the events posted to the main thread (structured
// clone), which alone encodes and writes them (one JSON-RPC connection). Prints one JSON line:
// the per-turn gap by the fake model's stamps (next request received − answer finished, ms: p50,
// p99), the child's CPU (all threads) per request and the child's main thread's.
import { spawn } from "node:child_process";
import { openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { post, viewCallMessages } from "../headless-floor.mjs";

const here = fileURLToPath(import.meta.url);
const value = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const VIEW_TOOL = {
  type: "function",
  function: {
    name: "view",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};

function burn(milliseconds) {
  const until = process.hrtime.bigint() + BigInt(Math.round(milliseconds * 1e6));
  let x = 0;
  while (process.hrtime.bigint() < until) {
    x += Math.sqrt(x + 1);
  }
  return x;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** One session: requests until the answer is text; work and relay between them. */
async function session(options, index, relay) {
  const url = new URL(`${options.baseUrl}/chat/completions`);
  const messages = [{ role: "user", content: `Read notes.md (session ${index + 1})` }];
  let requests = 0;
  for (;;) {
    const text = await post(
      url,
      JSON.stringify({ model: "bench-model", stream: true, messages, tools: [VIEW_TOOL] }),
    );
    requests += 1;
    const callId = /"id":"(call_[^"]+)"/.exec(text)?.[1];
    for (let slice = 0; slice < 3; slice++) {
      burn(options.workMs / 3);
      for (let event = 0; event < options.relay / 3; event++) {
        relay({
          sessionId: `session-${index}`,
          event: {
            type: "assistant.message_delta",
            id: `${requests}-${slice}-${event}`,
            data: { deltaContent: "Notes." },
          },
        });
      }
      await tick();
    }
    if (callId === undefined) {
      return requests;
    }
    messages.push(...viewCallMessages(callId));
  }
}

async function runSessions(options, first, count, relay) {
  const counts = await Promise.all(
    Array.from({ length: count }, (_, i) => session(options, first + i, relay)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

function mainThreadCpuMilliseconds() {
  // utime + stime of this thread (/proc/thread-self/stat fields 14 and 15, clock ticks of 10 ms).
  const fields = readFileSync("/proc/thread-self/stat", "latin1").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function child(options) {
  // Written as protocol/framed-writer.ts groups them: what was encoded during one turn of the
  // event loop goes out as one write.
  const output = openSync("/dev/null", "w");
  let waiting = "";
  const write = (params) => {
    const body = JSON.stringify({ jsonrpc: "2.0", method: "session.event", params });
    if (waiting === "") {
      setImmediate(() => {
        writeSync(output, waiting);
        waiting = "";
      });
    }
    waiting += `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadCpuMilliseconds();
  let requests = 0;
  if (options.workers === 0) {
    requests = await runSessions(options, 0, options.sessions, write);
  } else {
    const per = Math.ceil(options.sessions / options.workers);
    requests = (
      await Promise.all(
        Array.from({ length: options.workers }, (_, w) => {
          const worker = new Worker(here, {
            workerData: {
              ...options,
              first: w * per,
              count: Math.min(per, options.sessions - w * per),
            },
          });
          return new Promise((resolve, reject) => {
            worker.on("message", (message) =>
              message.done === undefined ? write(message) : resolve(message.done),
            );
            worker.on("error", reject);
          });
        }),
      )
    ).reduce((a, b) => a + b, 0);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const main = mainThreadCpuMilliseconds() - mainBefore;
  const cpuMilliseconds = (cpu.user + cpu.system) / 1e3;
  const result = { requests, cpuMilliseconds, mainThreadMilliseconds: main };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function parent() {
  const { startFakeModelWorker } = await import("../fake-model.mjs");
  const options = {
    sessions: Number(value("--sessions", 1000)),
    workers: Number(value("--workers", 0)),
    workMs: Number(value("--work-ms", 3.4)),
    relay: Number(value("--relay", 20)),
  };
  const model = await startFakeModelWorker({
    toolTurns: 2,
    firstTokenMilliseconds: [250, 1250],
    tokensPerSecond: 0,
  });
  const file = join(tmpdir(), `server39-loops-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ ...options, baseUrl: model.baseUrl }));
  const started = spawn(process.execPath, [here, "--child", file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  started.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  await new Promise((resolve) => started.once("exit", resolve));
  const result = JSON.parse(stdout);
  const byKey = new Map();
  for (const record of await model.requests()) {
    byKey.set(record.key, [...(byKey.get(record.key) ?? []), record]);
  }
  const gaps = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.index - b.index);
    for (let turn = 0; turn + 1 < list.length; turn++) {
      gaps.push(list[turn + 1].receivedAt - list[turn].finishedAt);
    }
  }
  gaps.sort((a, b) => a - b);
  await model.close();
  const round = (x) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      ...options,
      load: (await import("node:os")).loadavg()[0].toFixed(1),
      turns: gaps.length,
      p50: round(percentile(gaps, 50)),
      p99: round(percentile(gaps, 99)),
      cpuPerRequest: round(result.cpuMilliseconds / result.requests),
      mainThreadPerRequest: round(result.mainThreadMilliseconds / result.requests),
    }),
  );
}

if (!isMainThread) {
  const done = await runSessions(workerData, workerData.first, workerData.count, (params) =>
    parentPort.postMessage(params),
  );
  parentPort.postMessage({ done });
} else if (process.argv[2] === "--child") {
  await child(JSON.parse(readFileSync(process.argv[3], "utf8")));
} else {
  await parent();
}
