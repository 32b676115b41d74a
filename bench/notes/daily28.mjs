// `-p` against a long streamed answer: 20,000 text deltas (`w<N> `, about 130 KB) from the fake
// model (bench/fake-model.mjs, in a child process), `turnloop -p` timed from spawn to exit, with
// `turnloop acp` on the same answer interleaved as the comparison (bench/faces.mjs measureAcp:
// spawn to `session/prompt` answered, and its relay rate from first to last chunk).
// Usage: node bench/notes/daily28.mjs <dist/cli/main.js> [rounds] [deltas]   (bench/notes/daily28.md)
// Prints one line per run: face, wall ms (spawn to exit / to the prompt's answer), user+system
// CPU ms (-p: of the process, from /usr/bin/time), and the load average before it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { binCommand } from "../bin.mjs";
import { measureAcp } from "../faces.mjs";
import { monotonicMilliseconds, startFakeModelProcess } from "../fake-model.mjs";

const [cliArgument, roundsText] = process.argv.slice(2);
const cli = resolve(cliArgument);
const rounds = Number(roundsText ?? 5);
const deltas = Number(process.argv[4] ?? 20_000);
const model = await startFakeModelProcess({
  toolTurns: 0,
  answerDeltas: deltas,
  numberedDeltas: true,
});
const load = () => loadavg()[0].toFixed(1);

for (let round = 0; round < rounds; round++) {
  const home = mkdtempSync(join(tmpdir(), "daily28-home-"));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: model.baseUrl,
  };
  const before = load();
  const { command, args } = binCommand(cli, ["-p", "hi"]);
  const started = monotonicMilliseconds();
  const run = spawnSync("/usr/bin/time", ["-f", "%U %S", command, ...args], {
    cwd: home,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = monotonicMilliseconds() - started;
  const [user = Number.NaN, system = Number.NaN] = (run.stderr.trim().split("\n").at(-1) ?? "")
    .split(" ")
    .map(Number);
  const words = (run.stdout.match(/w\d+ /g) ?? []).length;
  console.log(
    `-p   wall ${wall.toFixed(0)} ms  cpu ${((user + system) * 1000).toFixed(0)} ms  deltas ${words}  exit ${run.status}  load ${before}`,
  );
  const acpBefore = load();
  const acp = await measureAcp({
    cliPath: cli,
    cwd: home,
    env,
    prompt: "hi",
    timeoutMilliseconds: 120_000,
  });
  if (acp.available) {
    const first = acp.chunks[0]?.at ?? Number.NaN;
    const last = acp.chunks.at(-1)?.at ?? Number.NaN;
    const rate = (acp.chunks.length / Math.max(1, last - first)) * 1000;
    console.log(
      `acp  wall ${acp.promptMilliseconds.toFixed(0)} ms  relay ${rate.toFixed(0)} deltas/s  relay cpu ${acp.relayOnCpuMilliseconds.toFixed(0)} ms  deltas ${acp.chunks.length}  load ${acpBefore}`,
    );
  } else {
    console.log(`acp  unavailable: ${acp.reason}`);
  }
  rmSync(home, { recursive: true, force: true });
}
await model.close();
