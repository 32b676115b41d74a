/** `relay-layers` and `request-layers`: what each layer (fetch + SSE, the AI SDK, our provider, a
 * session) costs. */

import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";
import { importPackage } from "./bundled-packages.mjs";
import {
  importDist,
  mainThreadSchedule,
  median,
  monotonicMilliseconds,
  openBenchSession,
  startFakeModelElsewhere,
} from "./support.mjs";

/**
 * The layers between the model's HTTP stream and a session subscriber, each as a function that
 * makes one request and returns the arrival times of its text deltas: (1) fetch + a minimal SSE
 * parser, (2) the AI SDK's OpenAI-compatible `doStream` with plain fetch, (3) the same with
 * turnloop's fetch wrapper (`openAiChatQuirksFetch`), (4) turnloop's Provider
 * (`createProvider(…).stream`), (5) a prompt of one turn in a Session with one subscriber.
 * Models, provider and session are made once per `baseUrl` and reused, as a long-lived agent would.
 * @param {{dist: string, cwd: string, home: string}} options
 * @param {string} baseUrl
 * @returns {Promise<Record<string, () => Promise<number[]>>>}
 */
async function makeLayers(options, baseUrl) {
  const [{ createOpenAICompatible }, { openAiChatQuirksFetch }, { createProvider, resolveModel }] =
    await Promise.all([
      importPackage(options.dist, "@ai-sdk/openai-compatible"),
      importDist(options.dist, "llm/openai-chat-quirks.js"),
      importDist(options.dist, "llm/models.js"),
    ]);
  const userPrompt = [{ role: "user", content: [{ type: "text", text: BENCH_PROMPT }] }];
  /** @param {typeof fetch | undefined} fetchFunction */
  const sdkLayer = (fetchFunction) => {
    const chat = createOpenAICompatible({
      name: "bench",
      baseURL: baseUrl,
      includeUsage: true,
      ...(fetchFunction === undefined ? {} : { fetch: fetchFunction }),
    }).chatModel("bench-model");
    return async () => {
      const { stream } = await chat.doStream({ prompt: userPrompt });
      const times = [];
      for await (const part of stream) {
        if (part.type === "text-delta") {
          times.push(monotonicMilliseconds());
        }
      }
      return times;
    };
  };
  const resolved = resolveModel({ model: BENCH_MODEL, baseUrl }, {});
  const provider = createProvider(resolved.configuration);
  /** @type {Awaited<ReturnType<typeof openBenchSession>> | undefined} */
  let opened;
  const { request: httpRequest, Agent } = await import("node:http");
  const agent = new Agent({ keepAlive: true });
  return {
    "node:http + SSE parse (floor without fetch)": () =>
      new Promise((resolveTimes, reject) => {
        const body = JSON.stringify({ model: "bench-model", messages: [], stream: true });
        const outgoing = httpRequest(
          `${baseUrl}/chat/completions`,
          { method: "POST", agent, headers: { "content-type": "application/json" } },
          (response) => {
            const times = [];
            let buffer = "";
            response.setEncoding("utf8");
            response.on("data", (text) => {
              buffer += text;
              let boundary = buffer.indexOf("\n\n");
              while (boundary !== -1) {
                const frame = buffer.slice(0, boundary);
                buffer = buffer.slice(boundary + 2);
                boundary = buffer.indexOf("\n\n");
                if (frame.startsWith("data: {")) {
                  const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
                  if (typeof content === "string" && content !== "") {
                    times.push(monotonicMilliseconds());
                  }
                }
              }
            });
            response.on("end", () => resolveTimes(times));
            response.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      }),
    "fetch + SSE parse (floor)": async () => {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench-model", messages: [], stream: true }),
      });
      const times = [];
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body ?? []) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf("\n\n");
          if (frame.startsWith("data: {")) {
            const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
            if (typeof content === "string" && content !== "") {
              times.push(monotonicMilliseconds());
            }
          }
        }
      }
      return times;
    },
    "AI SDK doStream (plain fetch)": sdkLayer(undefined),
    "AI SDK doStream + openAiChatQuirksFetch": sdkLayer(openAiChatQuirksFetch),
    "turnloop Provider.stream": async () => {
      const times = [];
      const request = {
        system: "You are a benchmark.",
        messages: [{ role: "user", content: BENCH_PROMPT }],
        tools: [],
      };
      for await (const event of provider.stream(request, new AbortController().signal)) {
        if (event.type === "text_delta") {
          times.push(monotonicMilliseconds());
        }
      }
      return times;
    },
    "Session (one subscriber; a prompt of one turn)": async () => {
      opened ??= await openBenchSession({ ...options, baseUrl, maxTurns: 5 });
      const times = [];
      const unsubscribe = opened.session.subscribe((event) => {
        if (event.type === "assistant.message_delta") {
          times.push(monotonicMilliseconds());
        }
      });
      await opened.session.prompt(opened.settings, BENCH_PROMPT);
      unsubscribe();
      return times;
    },
  };
}

/**
 * Deltas/s through each layer of {@link makeLayers}, each reading the same instant stream of
 * `deltas` text deltas, in one process after a warm-up. Layers run in `rounds` rounds,
 * interleaved, so load changes hit every layer alike; CPU is the main thread's (schedstat).
 * @param {{dist: string, cwd: string, home: string, deltas: number, rounds?: number}} options
 */
export async function relayLayers(options) {
  const model = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: options.deltas });
  const warmUp = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: 500 });
  try {
    for (const layer of Object.values(await makeLayers(options, warmUp.baseUrl))) {
      await layer();
    }
    const layers = await makeLayers(options, model.baseUrl);
    /** @type {Map<string, Array<{rate: number, cpu: number}>>} */
    const measured = new Map();
    for (let round = 0; round < (options.rounds ?? 1); round++) {
      for (const [name, layer] of Object.entries(layers)) {
        const before = mainThreadSchedule();
        const times = await layer();
        const after = mainThreadSchedule();
        const first = times[0] ?? Number.NaN;
        const last = times.at(-1) ?? Number.NaN;
        const runs = measured.get(name) ?? [];
        measured.set(name, runs);
        runs.push({
          rate: times.length > 1 ? ((times.length - 1) * 1000) / (last - first) : 0,
          cpu: ((after.onCpu - before.onCpu) * 1000) / Math.max(1, times.length),
        });
      }
    }
    return {
      rounds: options.rounds ?? 1,
      layers: [...measured].map(([layer, runs]) => ({
        layer,
        deltasPerSecond: median(runs.map((run) => run.rate)),
        cpuMicrosecondsPerDelta: median(runs.map((run) => run.cpu)),
      })),
    };
  } finally {
    await model.close();
    await warmUp.close();
  }
}

/**
 * Cost of one model request through each layer of {@link makeLayers}: `requests` requests in a
 * row per layer (a short answer of 8 deltas), after a warm-up; main-thread CPU and wall time per
 * request, median of `rounds` interleaved rounds.
 * @param {{dist: string, cwd: string, home: string, requests: number, rounds?: number}} options
 */
export async function requestLayers(options) {
  const model = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: 8, keepBodies: 0 });
  try {
    const layers = await makeLayers(options, model.baseUrl);
    for (const layer of Object.values(layers)) {
      for (let request = 0; request < 5; request++) {
        await layer();
      }
    }
    /** @type {Map<string, Array<{cpu: number, wall: number}>>} */
    const measured = new Map();
    for (let round = 0; round < (options.rounds ?? 1); round++) {
      for (const [name, layer] of Object.entries(layers)) {
        const before = mainThreadSchedule();
        const start = monotonicMilliseconds();
        for (let request = 0; request < options.requests; request++) {
          await layer();
        }
        const wall = monotonicMilliseconds() - start;
        const after = mainThreadSchedule();
        const runs = measured.get(name) ?? [];
        measured.set(name, runs);
        runs.push({
          cpu: (after.onCpu - before.onCpu) / options.requests,
          wall: wall / options.requests,
        });
      }
    }
    return {
      rounds: options.rounds ?? 1,
      requests: options.requests,
      layers: [...measured].map(([layer, runs]) => ({
        layer,
        cpuMillisecondsPerRequest: median(runs.map((run) => run.cpu)),
        wallMillisecondsPerRequest: median(runs.map((run) => run.wall)),
      })),
    };
  } finally {
    await model.close();
  }
}
