/** `relay` and its floor `relay-floor`: deltas/s and latency at a session subscriber. */

import { BENCH_PROMPT } from "../scenario.mjs";
import {
  monotonicMilliseconds,
  openBenchSession,
  startFakeModelElsewhere,
  withSchedule,
} from "./support.mjs";

/**
 * Streaming relay through a session: deltas/s at a subscriber (first to last delta) and, per
 * delta, the time from the fake server's write to the subscriber's `assistant.message_delta`.
 * @param {{dist: string, cwd: string, home: string, deltas: number, tokensPerSecond: number}} options
 */
export async function relay(options) {
  const model = await startFakeModelElsewhere({
    toolTurns: 0,
    answerDeltas: options.deltas,
    tokensPerSecond: options.tokensPerSecond,
    recordDeltaTimes: true,
    numberedDeltas: true,
  });
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: 5,
    });
    // One `assistant.message_delta` per model delta, in order: record times only, parse later.
    const received = new Float64Array(options.deltas);
    const texts = [];
    let count = 0;
    session.subscribe((event) => {
      if (event.type === "assistant.message_delta" && count < received.length) {
        received[count++] = monotonicMilliseconds();
        texts.push(event.data.deltaContent);
      }
    });
    const { result: outcome, schedule } = await withSchedule(() =>
      session.prompt(settings, BENCH_PROMPT),
    );
    await session.close();
    const [request] = await model.requests();
    const arrivals = [...received.subarray(0, count)].map((at, index) => ({
      number: Number(/w(\d+)/.exec(texts[index] ?? "")?.[1] ?? Number.NaN),
      at,
    }));
    return { ...relayFigures(outcome, arrivals, request), schedule };
  } finally {
    await model.close();
  }
}

/**
 * The floor of the relay: the same stream read with fetch and a minimal SSE parser (split on blank
 * lines, `JSON.parse` each `data:`), timing each text delta.
 * @param {{deltas: number, tokensPerSecond: number}} options
 */
export async function relayFloor(options) {
  const model = await startFakeModelElsewhere({
    toolTurns: 0,
    answerDeltas: options.deltas,
    tokensPerSecond: options.tokensPerSecond,
    recordDeltaTimes: true,
    numberedDeltas: true,
  });
  try {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "bench-model",
        messages: [{ role: "user", content: BENCH_PROMPT }],
        stream: true,
      }),
    });
    if (response.body === null) {
      throw new Error("no response body");
    }
    /** @type {Array<{number: number, at: number}>} */
    const received = [];
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf("\n\n");
        if (!frame.startsWith("data: ") || frame === "data: [DONE]") {
          continue;
        }
        const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
        if (typeof content === "string" && content !== "") {
          received.push({
            number: Number(/w(\d+)/.exec(content)?.[1]),
            at: monotonicMilliseconds(),
          });
        }
      }
    }
    const [request] = await model.requests();
    return relayFigures({ stopReason: "end_turn" }, received, request);
  } finally {
    await model.close();
  }
}

/**
 * Throughput and per-delta latency of a relay, from the server's write times and the reader's
 * arrival times of the numbered deltas.
 * @param {unknown} outcome
 * @param {Array<{number: number, at: number}>} received Deltas as they reached the reader.
 * @param {import("../fake-model.mjs").RecordedRequest | undefined} request
 */
export function relayFigures(outcome, received, request) {
  const written = request?.deltaWrittenAt ?? [];
  const latencies = received.map(({ number, at }) => at - (written[number] ?? Number.NaN));
  const first = received[0]?.at ?? Number.NaN;
  const last = received.at(-1)?.at ?? Number.NaN;
  const serverFirst = written[0] ?? Number.NaN;
  const serverLast = written.at(-1) ?? Number.NaN;
  return {
    outcome,
    deltasReceived: received.length,
    deltasWritten: written.length,
    deltasPerSecond: received.length > 1 ? ((received.length - 1) * 1000) / (last - first) : 0,
    serverDeltasPerSecond:
      written.length > 1 ? ((written.length - 1) * 1000) / (serverLast - serverFirst) : 0,
    latencies,
  };
}
