import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { ErrorReply, RecordedRequest, Reply, Wire } from "./fake-model-types.js";
import type { JsonValue } from "./json.js";
import { normaliseMessages } from "./normalise-request.js";

/**
 * The prompt tokens of a request as the fake server counts them: its whole JSON body at 4
 * characters per token (JSON quoting makes this a little more than the text alone, as real
 * tokenizers' counts of framing are).
 */
export function requestTokens(body: JsonValue): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

/** Each server's own words for a request over its context window (HTTP 400). */
export const CONTEXT_ERRORS = {
  openai: (tokens: number, limit: number): ErrorReply => ({
    status: 400,
    body: {
      error: {
        message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  }),
  responses: (): ErrorReply => ({
    status: 400,
    body: {
      error: {
        message:
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded",
      },
    },
  }),
  anthropic: (tokens: number, limit: number): ErrorReply => ({
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
      },
    },
  }),
  ollama: (): ErrorReply => ({
    status: 400,
    body: { error: { message: "the input length exceeds the context length", type: "api_error" } },
  }),
  vllm: (tokens: number, limit: number): ErrorReply => ({
    status: 400,
    body: {
      object: "error",
      message: `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens (${tokens - 100} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`,
      type: "BadRequestError",
      param: null,
      code: 400,
    },
  }),
  llamaCpp: (tokens: number, limit: number): ErrorReply => ({
    status: 400,
    body: {
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: tokens,
        n_ctx: limit,
      },
    },
  }),
} as const;

/** The context-length error a wire's own server answers with. */
export function contextErrorFor(wire: Wire, tokens: number, limit: number): ErrorReply {
  switch (wire) {
    case "openai-chat":
      return CONTEXT_ERRORS.openai(tokens, limit);
    case "openai-responses":
      return CONTEXT_ERRORS.responses();
    case "anthropic":
      return CONTEXT_ERRORS.anthropic(tokens, limit);
  }
}

/** `request`, or an error saying it is missing (a test indexing past the requests). */
function present(request: RecordedRequest | undefined): RecordedRequest {
  if (request === undefined) {
    throw new Error("no such request was received");
  }
  return request;
}

/** Whether a request is one of turnloop's summary requests (its system prompt says so). */
export function isSummaryRequest(request: RecordedRequest | undefined): boolean {
  return JSON.stringify(present(request).body).includes("working summary of a coding agent");
}

/** {@link requestTokens} of a received request. */
export function tokensOf(request: RecordedRequest | undefined): number {
  return requestTokens(present(request).body);
}

/** The text of every message of a request, joined (any wire). */
export function requestText(received: RecordedRequest | undefined): string {
  const request = present(received);
  return normaliseMessages(request.wire, request.body)
    .map((message) => `${message.content}${JSON.stringify(message.toolCalls ?? [])}`)
    .join("\n");
}

export interface LimitedModel {
  /** The server's real window (tokens). */
  limit: number;
  /** The reply to the n-th conversation request (0-based), summary requests not counted. */
  conversation: (index: number, request: RecordedRequest) => Reply;
  /** The reply to a summary request; default a structured summary. */
  summary?: (request: RecordedRequest) => Reply;
}

/**
 * A responder that behaves like a server with a real context window: a request over `limit`
 * tokens gets the wire's context-length error; others get the scripted reply with realistic
 * usage (the prompt tokens counted by {@link requestTokens}).
 */
export function limitedModel(model: LimitedModel): (request: RecordedRequest) => Reply {
  let conversationIndex = 0;
  return (request) => {
    const tokens = requestTokens(request.body);
    if (tokens > model.limit) {
      return contextErrorFor(request.wire, tokens, model.limit);
    }
    const reply = isSummaryRequest(request)
      ? (model.summary?.(request) ?? {
          text: "Task: read the files.\nDecisions: none.\nFiles: read file-1 … file-N.\nCommands: none.\nOpen problems: none.\nNext steps: summarise them.",
        })
      : model.conversation(conversationIndex++, request);
    if ("raw" in reply || "status" in reply) {
      return reply;
    }
    return { ...reply, usage: { input: tokens, output: 20 } };
  };
}

/**
 * Writes `file-1.txt` … `file-6.txt` into `folder`, about 6 KiB of text each: reading them all
 * ({@link viewEachFile}) goes past a context window of 8,000 tokens.
 */
export async function writeSixFiles(folder: string): Promise<void> {
  for (let file = 1; file <= 6; file++) {
    const line = `file-${file} holds this line of text.\n`;
    await writeFile(join(folder, `file-${file}.txt`), line.repeat(Math.ceil(6_144 / line.length)));
  }
}

/** A `conversation` for {@link limitedModel}: `view` each of {@link writeSixFiles}' files, then "finished". */
export function viewEachFile(index: number): Reply {
  return index < 6
    ? {
        toolCalls: [
          { id: `call-${index + 1}`, name: "view", arguments: `{"path":"file-${index + 1}.txt"}` },
        ],
      }
    : { text: "finished" };
}

/**
 * A prompt beyond a context window of 8,000 tokens: 99,999 characters, about 25,000 tokens as
 * compaction estimates them (4 characters a token).
 */
export const PROMPT_BEYOND_WINDOW = "word ".repeat(20_000).trimEnd();

/**
 * Asserts that `failure` is ACP's refusal of `session/prompt` over a context window of
 * `contextWindow` tokens (src/acp/errors.ts `promptFailure`): a JSON-RPC `-32602` error, its data
 * the estimate and the window. @returns the message, for the words.
 */
export function expectAcpPromptRefused(failure: unknown, contextWindow: number): string {
  const { code, message, data } = failure as { code: number; message: string; data: unknown };
  expect({ code, data }).toEqual({
    code: -32602,
    data: {
      errorType: "context_length_exceeded",
      estimatedTokens: expect.any(Number),
      contextWindow,
      method: "session/prompt",
    },
  });
  return message;
}

/**
 * Asserts that `failure` is ACP's refusal of `session/prompt` for {@link PROMPT_BEYOND_WINDOW}
 * with a window of 8,000 tokens ({@link expectAcpPromptRefused}), its message naming both sizes
 * and that nothing was sent. @returns the message, for the advice that follows those words.
 */
export function expectAcpPromptBeyondWindow(failure: unknown): string {
  const message = expectAcpPromptRefused(failure, 8000);
  expect(message).toMatch(
    /^session\/prompt: the prompt is about \d+ tokens with the system prompt and tools \(99999 characters\), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent\. /,
  );
  return message;
}
