import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type LanguageModel, type ModelMessage, streamText, tool } from "ai";
import { z } from "zod";
import type { Wire } from "../support/fake-model-server.js";

/** The real AI SDK clients turnloop uses, pointed at the fake server. */
export interface Client {
  name: string;
  wire: Wire;
  model: (url: string) => LanguageModel;
}

export const clients: Client[] = [
  {
    name: "openai .chat",
    wire: "openai-chat",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "test" }).chat("gpt-test"),
  },
  {
    name: "openai-compatible",
    wire: "openai-chat",
    model: (url) =>
      createOpenAICompatible({
        name: "compat",
        baseURL: `${url}/v1`,
        apiKey: "test",
        includeUsage: true,
      }).chatModel("compat-test"),
  },
  {
    name: "openai .responses",
    wire: "openai-responses",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "test" }).responses("gpt-test"),
  },
  {
    name: "anthropic",
    wire: "anthropic",
    model: (url) =>
      createAnthropic({ baseURL: `${url}/v1`, apiKey: "test" }).messages("claude-sonnet-4-5"),
  },
];

export function clientNamed(name: string): Client {
  const client = clients.find((candidate) => candidate.name === name);
  if (client === undefined) {
    throw new Error(`no client ${name}`);
  }
  return client;
}

// Tools without `execute`, so the SDK stops after one model call and leaves the calls to the test.
export const tools = {
  shell: tool({ description: "Run a command", inputSchema: z.object({ command: z.string() }) }),
  view: tool({ description: "Read a file", inputSchema: z.object({ path: z.string() }) }),
  report_intent: tool({
    description: "Report intent",
    inputSchema: z.object({ intent: z.string() }),
  }),
};

export interface Collected {
  text: string;
  reasoning: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
  finishReason: string | undefined;
  usage: unknown;
  errors: unknown[];
  /** the assistant and tool messages to append to the history for the next request */
  responseMessages: ModelMessage[];
}

export interface RunOptions {
  messages: ModelMessage[];
  abortSignal?: AbortSignal;
  providerOptions?: Parameters<typeof streamText>[0]["providerOptions"];
  /** called for every text delta, e.g. to abort after the first one */
  onText?: (text: string) => void;
}

export async function run(model: LanguageModel, options: RunOptions): Promise<Collected> {
  const result = streamText({
    model,
    messages: options.messages,
    tools,
    maxRetries: 0,
    abortSignal: options.abortSignal,
    providerOptions: options.providerOptions,
    // errors are collected from the stream below; the default handler would only log them
    onError: () => {},
  });
  const collected: Collected = {
    text: "",
    reasoning: "",
    toolCalls: [],
    finishReason: undefined,
    usage: undefined,
    errors: [],
    responseMessages: [],
  };
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") {
      collected.text += part.text;
      options.onText?.(part.text);
    } else if (part.type === "reasoning-delta") {
      collected.reasoning += part.text;
    } else if (part.type === "tool-call") {
      collected.toolCalls.push({
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      });
    } else if (part.type === "finish") {
      collected.finishReason = part.finishReason;
      collected.usage = part.totalUsage;
    } else if (part.type === "error") {
      collected.errors.push(part.error);
    }
  }
  if (collected.errors.length === 0 && options.abortSignal?.aborted !== true) {
    collected.responseMessages = (await result.response).messages;
  }
  return collected;
}

export function user(text: string): ModelMessage {
  return { role: "user", content: text };
}

export function toolResult(toolCallId: string, toolName: string, output: string): ModelMessage {
  return {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId, toolName, output: { type: "text", value: output } },
    ],
  };
}
