import { startFakeModelWorker } from "../fake-model.mjs";
import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";
import { measureSdkRelay } from "../sdk-relay.mjs";
import { summarize } from "../statistics.mjs";
import { cliCommand, minToMax, scenarioEnvironment } from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context @typedef {import("./common.mjs").Row} Row */

/**
 * Relay through `turnloop --headless --stdio` to an app using turnloop's SDK: deltas/s at the app
 * (instant model) and deltas per main-thread CPU-second of the server (the load-robust view).
 * Pending rows when the SDK face does not answer.
 * @param {Context} context
 * @param {{deltas: number}} throughput
 * @returns {Promise<Row[]>}
 */
export async function relayThroughSdk(context, throughput) {
  const rates = [];
  const perCpuSecond = [];
  let failure;
  for (let run = 0; run < context.settings.relayRuns; run++) {
    const model = await startFakeModelWorker({
      toolTurns: 0,
      answerDeltas: throughput.deltas,
      tokensPerSecond: 0,
      numberedDeltas: true,
      recordDeltaTimes: true,
    });
    try {
      const result = await measureSdkRelay({
        dist: context.dist,
        cliPath: context.cliPath,
        cwd: context.repo,
        env: scenarioEnvironment(context, model.baseUrl),
        model: BENCH_MODEL,
        prompt: BENCH_PROMPT,
      });
      if (!result.available) {
        failure = result.reason;
        break;
      }
      if (result.chunks.length !== throughput.deltas) {
        throw new Error(
          `SDK relay: ${result.chunks.length} of ${throughput.deltas} deltas arrived`,
        );
      }
      const first = result.chunks[0]?.at ?? Number.NaN;
      const last = result.chunks.at(-1)?.at ?? Number.NaN;
      rates.push(((result.chunks.length - 1) * 1000) / (last - first));
      perCpuSecond.push((result.chunks.length * 1000) / result.relayOnCpuMilliseconds);
    } finally {
      await model.close();
    }
  }
  const command = `${cliCommand("--headless --stdio")}   # spawned by turnloop's SDK (bench/sdk-relay.mjs): one session, one prompt, every assistant.message_delta timed at the app`;
  const runs = `${rates.length} run${rates.length === 1 ? "" : "s"} × ${throughput.deltas.toLocaleString("en-US")} deltas, fresh server each`;
  const target = { text: "≥ 30,000 /s", met: (value) => value >= 30_000 };
  const pending =
    failure === undefined ? undefined : `not measurable: the SDK face failed (${failure})`;
  return [
    {
      id: "4f",
      figure: "streaming relay through the SDK server: deltas/s at the app (instant model)",
      unit: "rate",
      value: summarize(rates).p50,
      spread: minToMax(rates),
      target,
      floor: {
        value: context.details.relay?.floorRate ?? Number.NaN,
        label: "fetch + minimal SSE parser",
      },
      runs,
      command,
      ...(pending === undefined ? {} : { pending }),
    },
    {
      id: "4f′",
      figure:
        "streaming relay through the SDK server: deltas per main-thread CPU-second of the server (load-robust view of 4f)",
      unit: "rate",
      value: summarize(perCpuSecond).p50,
      spread: minToMax(perCpuSecond),
      target,
      runs,
      command,
      ...(pending === undefined ? {} : { pending }),
    },
  ];
}
