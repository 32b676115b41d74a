/**
 * Request bodies through turnloop's provider for an OpenAI-compatible model, compared byte for
 * byte with the AI SDK's model alone given the same prompt and tools (test/llm/kept-*.test.ts).
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { expect } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput } from "../../src/events/events.js";
import { toFunctionTools, toPrompt } from "../../src/llm/convert.js";
import { HUGE_MESSAGE_BYTES, withHugeBodies } from "../../src/llm/huge-messages.js";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { ModelRequest, ToolSpecification } from "../../src/llm/provider.js";
import { withKeptMessages } from "../../src/llm/sync-chunk-validation.js";
import { buildEvents } from "../session/support.js";
import { afterEveryTest } from "../support/cleanups.js";

let server: Server | undefined;
afterEveryTest(async () => {
  const closing = server;
  server = undefined;
  closing?.closeAllConnections();
  await new Promise((done) => (closing === undefined ? done(undefined) : closing.close(done)));
});

/** One text reply on the Chat Completions wire, as SSE bytes. */
const REPLY = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] },
  {
    choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
]
  .map((chunk) => {
    const full = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, ...chunk };
    return `data: ${JSON.stringify({ ...full, model: "fake-model" })}\n\n`;
  })
  .concat("data: [DONE]\n\n")
  .join("");

/** A server that keeps each request body's exact bytes in `bodies` and answers {@link REPLY}. */
async function startServer(bodies: Buffer[]): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks));
      response.writeHead(200, { "content-type": "text/event-stream" }).end(REPLY);
    });
  });
  // Idle connections stay open until the test ends: a server closing one as the next request
  // goes out (its 5 s default, reached on a loaded machine) would make the provider retry.
  server.keepAliveTimeout = 0;
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

export const TOOLS: ToolSpecification[] = [
  {
    name: "view",
    description: "Shows a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

/** A huge text with characters JSON escapes: quotes, a line break, a backslash, é and an emoji. */
export function hugeText(label: string): string {
  return `${label} "begin"\n${"é\\🙂".repeat(HUGE_MESSAGE_BYTES / 2)} end`;
}

export function userMessage(content: string): EventInput {
  return { type: "user.message", data: { content, source: "user" } };
}

/** A turn calling `view` once, its result `result` (default: a short one). */
export function toolTurn(turn: number, result = `notes ${turn}`): EventInput[] {
  const toolCallId = `call_${turn}`;
  const toolRequests = [{ toolCallId, name: "view", arguments: { path: `notes-${turn}.md` } }];
  return [
    { type: "assistant.turn_start", data: { turnId: String(turn) } },
    {
      type: "assistant.message",
      data: {
        messageId: `m${turn}`,
        content: `looking ${turn}`,
        toolRequests,
        finishReason: "tool-calls",
      },
    },
    {
      type: "tool.execution_complete",
      data: { toolCallId, toolName: "view", success: true, result: { content: result } },
    },
    { type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } },
  ];
}

/** Where two bodies first differ, with a few characters of each from there; undefined: the same. */
function difference(index: number, ours: Buffer, sdk: Buffer): string | undefined {
  if (ours.equals(sdk)) {
    return undefined;
  }
  let at = 0;
  while (at < ours.length && ours[at] === sdk[at]) {
    at += 1;
  }
  const excerpt = (body: Buffer) => body.subarray(at, at + 60).toString("utf8");
  return `request ${index}: byte ${at} of ${ours.length} (the SDK's: ${sdk.length}): turnloop sent ${JSON.stringify(excerpt(ours))}, the SDK ${JSON.stringify(excerpt(sdk))}`;
}

/**
 * Sends the history at each step (its tools: `toolsAt(step)`) through turnloop's provider for
 * `openai-compatible:fake-model`, then the same prompt through the AI SDK's model alone; returns
 * how each pair of bodies differs.
 */
export async function differencesOver(
  steps: ReadonlyArray<readonly EventInput[]>,
  toolsAt: (step: number) => ToolSpecification[] = () => TOOLS,
): Promise<string[]> {
  const bodies: Buffer[] = [];
  const baseUrl = await startServer(bodies);
  const resolved = resolveModel({ model: "openai-compatible:fake-model", baseUrl }, {});
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const provider = createProvider(resolved.configuration);
  const sdkModel = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: baseUrl,
    apiKey: "unused",
    includeUsage: true,
  }).chatModel("fake-model");
  const history = new History();
  const differences: string[] = [];
  for (const [index, step] of steps.entries()) {
    for (const event of buildEvents(step)) {
      history.apply(event);
    }
    const tools = toolsAt(index);
    const request: ModelRequest = { system: "be brief", messages: history.messages, tools };
    const ends: string[] = [];
    for await (const event of provider.stream(request, new AbortController().signal)) {
      ends.push(event.type);
    }
    // One request each (a retry would send a body more).
    expect(ends).toEqual(["request_start", "text_delta", "done"]);
    const prompt = toPrompt(request.system, request.messages, undefined, false, true);
    const { stream } = await sdkModel.doStream({ prompt, tools: toFunctionTools(tools) });
    for await (const _part of stream) {
      // drained
    }
    const [ours, sdk] = bodies.splice(0, 2) as [Buffer, Buffer];
    const found = difference(index, ours, sdk);
    if (found !== undefined) {
      differences.push(found);
    }
  }
  return differences;
}

/**
 * Sends `prompts` all at once (in the same turn of the event loop, so each request's arguments
 * are made before any of their fetches) through an OpenAI-compatible model built as turnloop
 * builds it (src/llm/models.ts: its fetch wrapped by `withHugeBodies`, its earlier wire messages
 * and tools kept by `withKeptMessages`), each with an abort signal of its own as the loop's
 * requests have, then one by one through the AI SDK's model alone; returns how the bodies differ,
 * compared as sets (the server receives concurrent ones in any order), and each failed request's
 * error.
 */
export async function concurrentDifferences(
  steps: ReadonlyArray<ReadonlyArray<LanguageModelV3Prompt>>,
): Promise<string[]> {
  const bodies: Buffer[] = [];
  const baseURL = await startServer(bodies);
  const settings = { name: "openai-compatible", baseURL, apiKey: "unused", includeUsage: true };
  const ours = withKeptMessages(
    createOpenAICompatible({ ...settings, fetch: withHugeBodies() }).chatModel("fake-model"),
  );
  const sdkModel = createOpenAICompatible(settings).chatModel("fake-model");
  const tools = toFunctionTools(TOOLS);
  const drain = async (
    model: LanguageModelV3,
    prompt: LanguageModelV3Prompt,
    signal?: AbortSignal,
  ) => {
    const { stream } = await model.doStream({
      prompt,
      tools,
      ...(signal ? { abortSignal: signal } : {}),
    });
    for await (const _part of stream) {
      // drained
    }
  };
  const differences: string[] = [];
  for (const [step, prompts] of steps.entries()) {
    const sent = await Promise.allSettled(
      prompts.map((prompt) => drain(ours, prompt, new AbortController().signal)),
    );
    for (const result of sent) {
      if (result.status === "rejected") {
        differences.push(`step ${step}: ${String(result.reason).slice(0, 120)}`);
      }
    }
    const received = bodies.splice(0).sort(Buffer.compare);
    for (const prompt of prompts) {
      await drain(sdkModel, prompt);
    }
    const expected = bodies.splice(0).sort(Buffer.compare);
    for (const [index, body] of expected.entries()) {
      const found = difference(index, received[index] ?? Buffer.alloc(0), body);
      if (found !== undefined) {
        differences.push(`step ${step}: ${found}`);
      }
    }
  }
  return differences;
}
