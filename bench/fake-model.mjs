/**
 * A fake model server for the benchmarks: OpenAI Chat Completions (`POST …/chat/completions`)
 * streamed as SSE on 127.0.0.1 (one JSON reply when a request lacks `stream: true`), scripted for
 * the benchmark scenario.
 *
 * The script is stateless: each reply is chosen from the request's own history, so one server can
 * serve many runs and many concurrent sessions. After the last user message, while the history
 * holds fewer tool results than `toolTurns`, the reply is one `view` call on `viewPath`; then it is
 * a text answer of `answerDeltas` deltas. With the defaults this is the scenario: one
 * prompt, two model turns, one file read.
 *
 * Timing uses {@link monotonicMilliseconds} (CLOCK_MONOTONIC), which every thread and process on
 * this machine shares, so a request's arrival here can be compared with a span measured in the
 * benchmark process or in the agent.
 *
 * `startFakeModel` runs the server in the calling thread; `startFakeModelWorker` runs it in a
 * worker thread, so that serving does not share an event loop with the code being measured;
 * `startFakeModelProcess` runs it in a child process, so that it does not count in the measuring
 * process's memory either.
 */

import { fork } from "node:child_process";
import { createServer } from "node:http";
import { Worker } from "node:worker_threads";
import { firstTokenWait, messenger, sendWholeCompletion } from "./fake-model-parts.mjs";

/**
 * Milliseconds on the machine's monotonic clock (with sub-microsecond resolution), comparable
 * across threads and processes.
 * @returns {number}
 */
export function monotonicMilliseconds() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * @typedef {object} FakeModelOptions
 * @property {number} [toolTurns] `view` calls before the text answer (default 1).
 * @property {string} [viewPath] The file the `view` calls read (default `notes.md`).
 * @property {boolean} [viewRanges] Give each call a different `view_range`, so that many calls in a
 *   row are not identical (the loop stops a model that repeats itself). Default: true when
 *   `toolTurns` > 1.
 * @property {number} [answerDeltas] Text deltas in the answer (default 24).
 * @property {number} [tokensPerSecond] 0 = instant (default); else one delta every 1000/rate ms,
 *   tool-call arguments included.
 * @property {[number, number]} [firstTokenMilliseconds] `[low, high]`: each answer starts after a
 *   wait in that range (ms, after the request's body arrived), spread evenly over the range by
 *   the request's arrival order, as a real model's time to first token varies; absent = at once.
 *   One timer per request, so many sessions' answers arrive spread out without the fake model's
 *   one thread writing each token apart.
 * @property {boolean} [recordDeltaTimes] Record when each text delta was written (for latency).
 * @property {boolean} [numberedDeltas] Text deltas read `w<N> ` (N from 0), so that a reader can
 *   tell which delta it got even when a relay merges several into one message.
 * @property {number} [keepBodies] How many request bodies to keep as text (default 2).
 */

/**
 * @typedef {object} RecordedRequest
 * @property {number} index Order of arrival, from 0.
 * @property {string} key The first user message of the history (tells sessions apart).
 * @property {number} bytes Bytes of the request body.
 * @property {number} receivedAt When the request's headers arrived (monotonic ms).
 * @property {number} bodyReceivedAt When its body was complete (monotonic ms).
 * @property {number} firstWriteAt When the first byte of the answer was written (monotonic ms).
 * @property {number} finishedAt When the whole answer was handed to the OS (monotonic ms).
 * @property {"tool_call" | "text"} reply What was answered.
 * @property {number} textDeltas Text deltas in the answer.
 * @property {number[]} [deltaWrittenAt] When each text delta was written (monotonic ms).
 * @property {string} [body] The request body, for the first `keepBodies` requests.
 */

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** A small numbered file's worth of answer words, cycled. */
const ANSWER_WORDS = "The notes say the project is a small agent runtime with one event log".split(
  " ",
);

/**
 * Starts the fake model in this thread.
 * @param {FakeModelOptions} [options]
 * @returns {Promise<{url: string, baseUrl: string, requests: () => Promise<RecordedRequest[]>,
 *   reset: () => Promise<void>, close: () => Promise<void>}>}
 */
export async function startFakeModel(options = {}) {
  const settings = {
    toolTurns: options.toolTurns ?? 1,
    viewPath: options.viewPath ?? "notes.md",
    viewRanges: options.viewRanges ?? (options.toolTurns ?? 1) > 1,
    answerDeltas: options.answerDeltas ?? 24,
    tokensPerSecond: options.tokensPerSecond ?? 0,
    firstTokenMilliseconds: options.firstTokenMilliseconds ?? [0, 0],
    recordDeltaTimes: options.recordDeltaTimes ?? false,
    numberedDeltas: options.numberedDeltas ?? false,
    keepBodies: options.keepBodies ?? 2,
  };
  /** @type {RecordedRequest[]} */
  let requests = [];
  let sequence = 0;
  const sockets = new Set();
  const server = createServer((request, response) => {
    const receivedAt = monotonicMilliseconds();
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      /** @type {RecordedRequest} */
      const record = {
        index: sequence++,
        key: "",
        bytes: body.length,
        receivedAt,
        bodyReceivedAt: monotonicMilliseconds(),
        firstWriteAt: 0,
        finishedAt: 0,
        reply: "text",
        textDeltas: 0,
      };
      if (record.index < settings.keepBodies) {
        record.body = body.toString("utf8");
      }
      requests.push(record);
      answer(request, response, body, record, settings).catch((error) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests: async () => requests,
    reset: async () => {
      requests = [];
      sequence = 0;
    },
    close: async () => {
      const closed = new Promise((resolve) => server.close(() => resolve(undefined)));
      for (const socket of sockets) {
        socket.destroy();
      }
      await closed;
    },
  };
}

/**
 * Answers one request: a `view` call or the text answer, chosen from the history.
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 * @param {Buffer} body
 * @param {RecordedRequest} record
 * @param {Required<FakeModelOptions>} settings
 */
async function answer(request, response, body, record, settings) {
  if (request.method !== "POST" || !(request.url ?? "").endsWith("/chat/completions")) {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }),
    );
    return;
  }
  let parsed;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: "the body is not JSON" } }));
    return;
  }
  const messages = Array.isArray(parsed.messages) ? parsed.messages : [];
  const firstUser = messages.find((message) => message.role === "user");
  record.key = typeof firstUser?.content === "string" ? firstUser.content : "";
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message.role === "user") {
      lastUser = index;
    }
  });
  const toolResults = messages.slice(lastUser + 1).filter((message) => message.role === "tool");
  // A request offering no tools (a compaction's summary, a title) is answered with text.
  const offersTools = Array.isArray(parsed.tools) && parsed.tools.length > 0;
  const model = typeof parsed.model === "string" ? parsed.model : "bench-model";
  const envelope = {
    id: `chatcmpl-${record.index}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
  };
  /** @param {object} delta @param {string | null} [finishReason] */
  const deltaFrame = (delta, finishReason = null) =>
    `data: ${JSON.stringify({
      ...envelope,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    })}\n\n`;
  const usageFrame = `data: ${JSON.stringify({
    ...envelope,
    choices: [],
    usage: {
      prompt_tokens: Math.round(record.bytes / 4),
      completion_tokens: settings.answerDeltas,
      total_tokens: Math.round(record.bytes / 4) + settings.answerDeltas,
    },
  })}\n\n`;

  /**
   * Each frame says whether it is a text delta (timed when recorded) and whether it waits its turn
   * at the token rate (text deltas and pieces of tool-call arguments do).
   * @type {Array<{frame: string, textDelta: boolean, paced: boolean}>}
   */
  const frames = [
    { frame: deltaFrame({ role: "assistant", content: "" }), textDelta: false, paced: false },
  ];
  /** The answer as one message, for a request without `stream: true`. */
  const whole = { message: { content: "" }, finishReason: "stop" };
  /** @param {string} frame @param {boolean} [paced] */
  const control = (frame, paced = false) => {
    frames.push({ frame, textDelta: false, paced });
  };
  if (toolResults.length < settings.toolTurns && offersTools) {
    record.reply = "tool_call";
    const turn = toolResults.length;
    const argumentsObject = settings.viewRanges
      ? { path: settings.viewPath, view_range: [1, 2 + (turn % 8)] }
      : { path: settings.viewPath };
    const argumentsText = JSON.stringify(argumentsObject);
    const callId = `call_${record.index}_${turn}`;
    control(
      deltaFrame({
        tool_calls: [
          { index: 0, id: callId, type: "function", function: { name: "view", arguments: "" } },
        ],
      }),
    );
    // Arguments arrive in pieces of about one token (4 characters), as from a real model.
    for (let start = 0; start < argumentsText.length; start += 4) {
      const piece = argumentsText.slice(start, start + 4);
      control(deltaFrame({ tool_calls: [{ index: 0, function: { arguments: piece } }] }), true);
    }
    control(deltaFrame({}, "tool_calls"));
    whole.message = {
      content: null,
      tool_calls: [
        { id: callId, type: "function", function: { name: "view", arguments: argumentsText } },
      ],
    };
    whole.finishReason = "tool_calls";
  } else {
    record.reply = "text";
    for (let index = 0; index < settings.answerDeltas; index++) {
      const word = settings.numberedDeltas
        ? `w${index}`
        : ANSWER_WORDS[index % ANSWER_WORDS.length];
      frames.push({ frame: deltaFrame({ content: `${word} ` }), textDelta: true, paced: true });
      whole.message.content += `${word} `;
    }
    control(deltaFrame({}, "stop"));
    record.textDeltas = settings.answerDeltas;
  }
  await firstTokenWait(record.index, settings.firstTokenMilliseconds);
  if (response.destroyed) {
    return;
  }
  if (parsed.stream !== true) {
    // Asked for one JSON reply (the Copilot SDK's default): the same answer, whole.
    sendWholeCompletion(response, { ...envelope, object: "chat.completion" }, whole, usageFrame);
    return;
  }
  control(usageFrame);
  control("data: [DONE]\n\n");
  await play(response, frames, record, settings);
}

/**
 * Writes the frames, instantly or at the token rate, and records the timing.
 * @param {import("node:http").ServerResponse} response
 * @param {Array<{frame: string, textDelta: boolean, paced: boolean}>} frames
 * @param {RecordedRequest} record
 * @param {Required<FakeModelOptions>} settings
 */
async function play(response, frames, record, settings) {
  const gapMilliseconds = settings.tokensPerSecond > 0 ? 1000 / settings.tokensPerSecond : 0;
  const deltaWrittenAt = settings.recordDeltaTimes ? [] : undefined;
  response.writeHead(200, SSE_HEADERS);
  response.flushHeaders();
  record.firstWriteAt = monotonicMilliseconds();
  let next = performance.now();
  for (const { frame, textDelta, paced } of frames) {
    if (gapMilliseconds > 0 && paced) {
      next += gapMilliseconds;
      const wait = next - performance.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    if (response.destroyed) {
      return;
    }
    if (textDelta && deltaWrittenAt !== undefined) {
      deltaWrittenAt.push(monotonicMilliseconds());
    }
    response.write(frame);
  }
  if (deltaWrittenAt !== undefined) {
    record.deltaWrittenAt = deltaWrittenAt;
  }
  await new Promise((resolve) => response.end(() => resolve(undefined)));
  record.finishedAt = monotonicMilliseconds();
}

/**
 * Starts the fake model in a child process (its own memory). Same interface as
 * {@link startFakeModel}.
 * @param {FakeModelOptions} [options]
 * @returns {Promise<{url: string, baseUrl: string, requests: () => Promise<RecordedRequest[]>,
 *   reset: () => Promise<void>, close: () => Promise<void>}>}
 */
export async function startFakeModelProcess(options = {}) {
  const child = fork(
    new URL("./fake-model-worker.mjs", import.meta.url),
    [JSON.stringify(options)],
    {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    },
  );
  const ask = messenger(
    (message) => child.send(message),
    (handler) => child.on("message", handler),
    (handler) => child.on("exit", (code) => handler(new Error(`fake model exited (${code})`))),
  );
  const ready = await ask("url");
  return {
    url: ready.url,
    baseUrl: `${ready.url}/v1`,
    requests: async () => (await ask("requests")).requests,
    reset: async () => {
      await ask("reset");
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
      await ask("close");
      await exited;
    },
  };
}

/**
 * Starts the fake model in a worker thread (its own event loop). Same interface as
 * {@link startFakeModel}.
 * @param {FakeModelOptions} [options]
 * @returns {Promise<{url: string, baseUrl: string, requests: () => Promise<RecordedRequest[]>,
 *   reset: () => Promise<void>, close: () => Promise<void>}>}
 */
export async function startFakeModelWorker(options = {}) {
  const worker = new Worker(new URL("./fake-model-worker.mjs", import.meta.url), {
    workerData: options,
  });
  const ask = messenger(
    (message) => worker.postMessage(message),
    (handler) => worker.on("message", handler),
    (handler) => worker.on("error", handler),
  );
  const ready = await ask("url");
  return {
    url: ready.url,
    baseUrl: `${ready.url}/v1`,
    requests: async () => (await ask("requests")).requests,
    reset: async () => {
      await ask("reset");
    },
    close: async () => {
      await ask("close");
      await worker.terminate();
    },
  };
}
