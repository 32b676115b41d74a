/**
 * Issue 26, figures 7a–7c seen through CPU time: the on-CPU time of `turnloop acp` up to the
 * `initialize` answer and up to the scenario's `session/prompt` answer, for one or more builds run
 * in turn (A, B, A, B …), so that on a shared machine both see the same load.
 *
 * `node bench/acp-cpu.mjs [--rounds 10] CLI…` (each CLI a built `dist/cli/main.js`; default this
 * repository's): each round starts each build once, the way an editor does (the `bin` itself, its
 * shebang's flags honoured: bench/bin.mjs), sends `initialize`, `session/new` and
 * `session/prompt "What does notes.md say?"` (the benchmark scenario, bench/scenario.mjs, against
 * bench/fake-model.mjs) and reads, when each answer arrives, the time every thread of the agent has
 * spent on a CPU (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds), the main thread's alone, and
 * `VmHWM`. One warm-up round is not counted. Prints the median and range of each per build, and the
 * load average after each round.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { binCommand } from "./bin.mjs";
import { loadAverage } from "./child.mjs";
import { startFakeModelWorker } from "./fake-model.mjs";
import { BENCH_MODEL, BENCH_PROMPT, createScenarioRepository } from "./scenario.mjs";
import { summarize } from "./statistics.mjs";

const argv = process.argv.slice(2);
const roundsIndex = argv.indexOf("--rounds");
const ROUNDS = roundsIndex === -1 ? 10 : Number(argv[roundsIndex + 1]);
const CLIS = argv.filter((_, index) => index !== roundsIndex && index !== roundsIndex + 1);
if (CLIS.length === 0) {
  CLIS.push(fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)));
}

/**
 * CPU time of every thread and of the main thread (ms), and the peak RSS (MiB), of a live process.
 * @param {number} pid
 */
function sample(pid) {
  const onCpu = (task) =>
    Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  const threads = readdirSync(`/proc/${pid}/task`).reduce((sum, task) => sum + onCpu(task), 0);
  const peak = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { threads, main: onCpu(String(pid)), peakMiB: Number(peak?.[1]) / 1024 };
}

/**
 * One scenario run of `cli acp`.
 * @param {string} cli @param {string} cwd @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{initialize: ReturnType<typeof sample>, prompt: ReturnType<typeof sample>}>}
 */
function runOnce(cli, cwd, env) {
  const { command, args } = binCommand(cli, ["acp"]);
  const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "inherit"] });
  const send = (message) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const samples = {};
  return new Promise((done, fail) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.method === "session/request_permission") {
        const allow = message.params.options.find((option) => option.kind === "allow_once");
        send({
          id: message.id,
          result: { outcome: { outcome: "selected", optionId: allow.optionId } },
        });
      } else if (message.id === 1) {
        samples.initialize = sample(child.pid);
        send({ id: 2, method: "session/new", params: { cwd, mcpServers: [] } });
      } else if (message.id === 2) {
        const prompt = [{ type: "text", text: BENCH_PROMPT }];
        send({
          id: 3,
          method: "session/prompt",
          params: { sessionId: message.result.sessionId, prompt },
        });
      } else if (message.id === 3) {
        samples.prompt = sample(child.pid);
        child.stdin.end();
        if (message.result?.stopReason !== "end_turn") {
          fail(new Error(`${cli}: ${line}`));
        }
      }
    });
    child.once("exit", () => (samples.prompt ? done(samples) : fail(new Error(`${cli} exited`))));
    send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  });
}

const temp = mkdtempSync(join(tmpdir(), "turnloop-acp-cpu-"));
const repo = join(temp, "repo");
createScenarioRepository(repo);
mkdirSync(join(temp, "home"));
const model = await startFakeModelWorker({});
const env = {
  PATH: process.env.PATH,
  HOME: join(temp, "user-home"),
  TURNLOOP_HOME: join(temp, "home"),
  TURNLOOP_MODEL: BENCH_MODEL,
  TURNLOOP_BASE_URL: model.baseUrl,
};
/** @type {Map<string, Array<Awaited<ReturnType<typeof runOnce>>>>} */
const results = new Map(CLIS.map((cli) => [cli, []]));
const loads = [loadAverage().split(" ")[0]];
try {
  for (let round = -1; round < ROUNDS; round++) {
    for (const cli of CLIS) {
      await model.reset();
      const run = await runOnce(resolve(cli), repo, env);
      if (round >= 0) {
        results.get(cli)?.push(run);
      }
    }
    loads.push(loadAverage().split(" ")[0]);
  }
} finally {
  await model.close();
  rmSync(temp, { recursive: true, force: true });
}
const show = (values) => {
  const { p50 } = summarize(values);
  return `${p50.toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
};
for (const [cli, runs] of results) {
  process.stdout.write(
    `${cli}, ${runs.length} runs\n` +
      `  initialize answered: CPU all threads ${show(runs.map((run) => run.initialize.threads))} ms, main thread ${show(runs.map((run) => run.initialize.main))} ms\n` +
      `  session/prompt answered: CPU all threads ${show(runs.map((run) => run.prompt.threads))} ms, main thread ${show(runs.map((run) => run.prompt.main))} ms, VmHWM ${show(runs.map((run) => run.prompt.peakMiB))} MiB\n`,
  );
}
process.stdout.write(`load average after each round: ${loads.join(" ")}\n`);
