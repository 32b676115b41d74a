/**
 * Heap allocated per streamed delta in a session (bench/notes/relay33.md), the method of
 * bench/notes/turn32.md: the `relay` benchmark's set-up (bench/in-process/relay.mjs), V8's
 * sampling heap profiler (collected objects included) started at the 1,000th
 * `assistant.message_delta` of an instant answer and stopped at the prompt's end.
 *
 *   node bench/notes/relay33.mjs '{"dist":"<build>/dist","cwd":"<repo>","home":"<home>",
 *     "deltas":20000,"secret":true,"functions":12}'
 *
 * With `secret: true` the session's environment holds an API key (`OPENAI_API_KEY`), so every
 * event goes through the redactor as for a user whose provider takes a key.
 * Prints one JSON line: bytes per delta in all and by function (self), the largest first.
 */

import { Session as Inspector } from "node:inspector";
import { resolve } from "node:path";
import { distWithBundledPackages } from "../in-process/bundled-packages.mjs";
import { importDist, startFakeModelElsewhere } from "../in-process/support.mjs";
import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";

const options = JSON.parse(process.argv[2] ?? "{}");
options.dist = await distWithBundledPackages(resolve(options.dist));
const startAt = 1_000;

const model = await startFakeModelElsewhere({
  toolTurns: 0,
  answerDeltas: options.deltas,
  tokensPerSecond: 0,
  numberedDeltas: true,
});
const inspector = new Inspector();
inspector.connect();
try {
  const { session, settings } = await openSession(model.baseUrl);
  await post("HeapProfiler.enable");
  let deltas = 0;
  let sampledDeltas = 0;
  /** @type {Promise<unknown> | undefined} */
  let started;
  session.subscribe((event) => {
    if (event.type !== "assistant.message_delta") {
      return;
    }
    deltas += 1;
    if (deltas === startAt) {
      started = post("HeapProfiler.startSampling", {
        samplingInterval: options.samplingInterval ?? 128,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else if (deltas > startAt) {
      sampledDeltas += 1;
    }
  });
  const outcome = await session.prompt(settings, BENCH_PROMPT);
  await started;
  const { profile } = /** @type {{profile: {head: object}}} */ (
    await post("HeapProfiler.stopSampling")
  );
  await session.close();
  process.stdout.write(
    `${JSON.stringify({ outcome, deltas, sampledDeltas, ...perDelta(profile, sampledDeltas) })}\n`,
  );
} finally {
  inspector.disconnect();
  await model.close();
}

/** As bench/in-process/support.mjs `openBenchSession`, with a key in the environment if asked. */
async function openSession(baseUrl) {
  const [{ SessionHost }, { resolveRunConfig }, { parseCommand }] = await Promise.all([
    importDist(options.dist, "session/host.js"),
    importDist(options.dist, "session/run-config.js"),
    importDist(options.dist, "cli/arguments.js"),
  ]);
  const command = parseCommand(["-p", BENCH_PROMPT, "--max-turns", "5"], options.cwd);
  const env = {
    TURNLOOP_MODEL: BENCH_MODEL,
    TURNLOOP_BASE_URL: baseUrl,
    ...(options.secret ? { OPENAI_API_KEY: "sk-bench-0123456789abcdefghijklmnop" } : {}),
  };
  const host = new SessionHost({
    home: options.home,
    env,
    config: resolveRunConfig({ ...command.options, cwd: options.cwd }, env),
  });
  const resolved = host.resolveModel();
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const session = await host.create(options.cwd, resolved.configuration.id);
  const settings = host.agentSettings(session, resolved.configuration, {
    autopilot: false,
    noAskReason: "benchmark: no one to ask",
  });
  return { session, settings };
}

/** Bytes per delta in all and by function (self, `name file:line`), the largest first. */
function perDelta(profile, count) {
  const sizes = new Map();
  let total = 0;
  const walk = (node) => {
    total += node.selfSize;
    const frame = node.callFrame;
    const place =
      frame.url === "" ? "(native)" : frame.url.replace(/^.*\/(dist|node_modules)\//, "$1/");
    const name = `${frame.functionName || "(anonymous)"} ${place}:${frame.lineNumber + 1}`;
    sizes.set(name, (sizes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) {
      walk(child);
    }
  };
  walk(profile.head);
  const bytes = (value) => Math.round(value / count);
  return {
    bytesPerDelta: bytes(total),
    byFunction: Object.fromEntries(
      [...sizes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, options.functions ?? 12)
        .map(([name, size]) => [name, bytes(size)]),
    ),
  };
}

function post(method, params) {
  return new Promise((resolvePost, reject) => {
    inspector.post(method, params, (error, result) =>
      error ? reject(error) : resolvePost(result),
    );
  });
}
