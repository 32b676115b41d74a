/**
 * Captures the `session.event` notifications of one SDK relay (bench/sdk-relay.mjs's scenario:
 * one prompt of `deltas` numbered deltas from the instant fake model) as the app received them,
 * for the instruction counts of relay-counts/outbound.mjs and relay-counts/inbound.mjs.
 *
 * Usage: `node bench/relay-counts/capture.mjs <dist> <out.json> [deltas]` (default 20,000).
 * Writes `{sessionId, events: [...]}`, every event the app saw, in order.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeModelWorker } from "../fake-model.mjs";
import { BENCH_MODEL, BENCH_PROMPT, createScenarioRepository } from "../scenario.mjs";

const [dist = "dist", out = "relay-capture.json", deltas = "20000"] = process.argv.slice(2);
const temp = mkdtempSync(join(tmpdir(), "relay-capture-"));
const repo = join(temp, "repo");
mkdirSync(repo);
createScenarioRepository(repo);
const model = await startFakeModelWorker({
  toolTurns: 0,
  answerDeltas: Number(deltas),
  tokensPerSecond: 0,
  numberedDeltas: true,
});
const { TurnloopClient } = await import(pathToFileURL(resolve(dist, "sdk/index.js")).href);
const client = new TurnloopClient({
  cliPath: resolve(dist, "cli/main.js"),
  cwd: repo,
  env: {
    PATH: process.env.PATH,
    HOME: join(temp, "home"),
    TURNLOOP_HOME: join(temp, "turnloop-home"),
    TURNLOOP_MODEL: BENCH_MODEL,
    TURNLOOP_BASE_URL: model.baseUrl,
  },
});
try {
  const session = await client.createSession({ model: BENCH_MODEL, streaming: true });
  const events = [];
  session.on((event) => events.push(event));
  await session.sendAndWait({ prompt: BENCH_PROMPT }, 120_000);
  writeFileSync(out, JSON.stringify({ sessionId: session.sessionId, events }));
  const count = events.filter((event) => event.type === "assistant.message_delta").length;
  process.stdout.write(`${events.length} events, ${count} deltas → ${out}\n`);
} finally {
  await client.stop();
  await model.close();
  rmSync(temp, { recursive: true, force: true });
}
