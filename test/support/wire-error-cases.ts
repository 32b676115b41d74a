import type { RecordedRequest, Reply } from "./fake-model-types.js";

// The ways each wire says a model's error, for each kind of error, as the fake model's exact bytes
// (test/llm/wire-error-kinds.test.ts runs them all in-process, test/cli/wire-error-kinds.test.ts
// one per wire through the built CLI). README, "Choosing a model": a model's error is typed by the
// error's own code or type however it comes, and sent again only when it is transient.

export type Kind = "rate_limit" | "quota" | "auth" | "invalid" | "server";

interface ErrorFields {
  type: string;
  code: string | null;
  message: string;
  status: number;
}

/** Each kind as OpenAI's APIs say it (type, code, HTTP status). */
export const OPENAI: Record<Kind, ErrorFields> = {
  rate_limit: {
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests",
    status: 429,
  },
  quota: {
    type: "insufficient_quota",
    code: "insufficient_quota",
    message: "You exceeded your current plan.",
    status: 429,
  },
  auth: {
    type: "invalid_request_error",
    code: "invalid_api_key",
    message: "Incorrect API key provided.",
    status: 401,
  },
  invalid: {
    type: "invalid_request_error",
    code: "invalid_prompt",
    message: "Invalid prompt.",
    status: 400,
  },
  server: { type: "server_error", code: null, message: "The server had an error.", status: 500 },
};

/** Each kind as Anthropic's API says it (its error `type`, HTTP status). */
export const ANTHROPIC: Record<Kind, ErrorFields> = {
  rate_limit: { type: "rate_limit_error", code: null, message: "Rate limited.", status: 429 },
  quota: { type: "billing_error", code: null, message: "Billing problem.", status: 402 },
  auth: { type: "authentication_error", code: null, message: "invalid x-api-key", status: 401 },
  invalid: { type: "invalid_request_error", code: null, message: "Bad order.", status: 400 },
  server: { type: "overloaded_error", code: null, message: "Overloaded", status: 529 },
};

/** What `error.type` a kind is and how many requests it costs with TURNLOOP_MAX_RETRIES=1. */
export const EXPECTED: Record<Kind, { type: string; requests: number }> = {
  rate_limit: { type: "rate_limit", requests: 2 },
  quota: { type: "quota", requests: 1 },
  auth: { type: "authentication", requests: 1 },
  invalid: { type: "invalid_request", requests: 1 },
  server: { type: "server", requests: 2 },
};

export const sse = (event: string | undefined, data: object) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;

const openAiError = ({ type, code, message }: ErrorFields) => ({
  error: { message, type, param: null, code },
});
const anthropicError = ({ type, message }: ErrorFields) => ({
  type: "error",
  error: { type, message },
});

/** The ways each wire can say an error, as the fake model's reply. */
const WAYS: Record<
  string,
  { model: string; ways: Record<string, (fields: ErrorFields) => Reply> }
> = {
  chat: {
    model: "openai-chat:gpt-4.1",
    ways: {
      "HTTP status": (fields) => ({ status: fields.status, body: openAiError(fields) }),
      "200 error body": (fields) => ({ status: 200, body: openAiError(fields) }),
      "error chunk": (fields) => ({ raw: [sse(undefined, openAiError(fields))] }),
    },
  },
  responses: {
    model: "openai:gpt-5",
    ways: {
      "HTTP status": (fields) => ({ status: fields.status, body: openAiError(fields) }),
      "200 error body": (fields) => ({ status: 200, body: openAiError(fields) }),
      "error event": ({ code, type, message }) => ({
        raw: [
          sse("error", {
            type: "error",
            sequence_number: 1,
            code: code ?? type,
            message,
            param: null,
          }),
        ],
      }),
      "response.failed": ({ code, type, message }) => ({
        raw: [
          sse("response.failed", {
            type: "response.failed",
            sequence_number: 1,
            response: failedResponse({ code: code ?? type, message }),
          }),
        ],
      }),
    },
  },
  anthropic: {
    model: "anthropic:claude-sonnet-4-5",
    ways: {
      "HTTP status": (fields) => ({ status: fields.status, body: anthropicError(fields) }),
      "200 error body": (fields) => ({ status: 200, body: anthropicError(fields) }),
      "error event": (fields) => ({ raw: [sse("error", anthropicError(fields))] }),
    },
  },
};

export const KINDS = Object.keys(EXPECTED) as Kind[];

export interface Case {
  wire: string;
  way: string;
  kind: Kind;
  prompt: string;
  reply: Reply;
  model: string;
}

export const CASES: Case[] = Object.entries(WAYS).flatMap(([wire, { model, ways }]) =>
  Object.entries(ways).flatMap(([way, reply]) =>
    KINDS.map((kind, index) => ({
      wire,
      way,
      kind,
      model,
      prompt: `case ${wire} ${way} ${kind} #${index}.`,
      reply: reply((wire === "anthropic" ? ANTHROPIC : OPENAI)[kind]),
    })),
  ),
);

/** The case whose prompt a request carries. */
export function caseOf(request: RecordedRequest): Case | undefined {
  const body = JSON.stringify(request.body);
  return CASES.find((one) => body.includes(one.prompt));
}

/** The Responses API's events of an answer whose text began ("Partial"). */
export function responsesTextStart(): string[] {
  const response = { id: "resp_1", object: "response", created_at: 1, model: "gpt-5" };
  const where = { item_id: "msg_1", output_index: 0 };
  return [
    sse("response.created", {
      type: "response.created",
      sequence_number: 1,
      response: { ...response, status: "in_progress", output: [], usage: null },
    }),
    sse("response.output_item.added", {
      type: "response.output_item.added",
      sequence_number: 2,
      output_index: 0,
      item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
    }),
    sse("response.output_text.delta", {
      type: "response.output_text.delta",
      sequence_number: 3,
      ...where,
      content_index: 0,
      delta: "Partial",
      logprobs: [],
    }),
  ];
}

/** A Responses answer whose text began ("Partial"), then an `error` event of `kind`'s code. */
export function errorAfterText(kind: Kind): string[] {
  const { code, type, message } = OPENAI[kind];
  const error = { type: "error", sequence_number: 4, code: code ?? type, message, param: null };
  return [...responsesTextStart(), sse("error", error)];
}

/** A Responses API `response` object of status `failed` carrying `error` (`{code, message}`). */
export function failedResponse(error: { code: string | null; message: string }) {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1,
    model: "gpt-5",
    status: "failed",
    output: [],
    error,
    incomplete_details: null,
    usage: null,
  };
}
