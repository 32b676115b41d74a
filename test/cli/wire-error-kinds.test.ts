import { describe, expect } from "vitest";
import type { RecordedRequest, Reply } from "../support/fake-model-types.js";
import { type CliFixtures, test } from "../support/fixtures.js";

// One rule on every wire (README, "Choosing a model"): a model's error is typed by the error's own
// code or type, however it comes (an HTTP error status, a 200 answer whose body is an error, an
// error inside the event stream: Chat's error chunk, Anthropic's `error` event, the Responses
// API's `error` event and `response.failed`), and sent again only when it is transient. Each case
// is one `-p --output-format json` run of the built CLI against the fake model's exact bytes; the
// requests the fake model received say whether it was sent again (at most 1 retry here).
// Trial 42 F1: the Responses API's events were typed by the event's own type ("error"), `server`.

type Kind = "rate_limit" | "quota" | "auth" | "invalid" | "server";

interface ErrorFields {
  type: string;
  code: string | null;
  message: string;
  status: number;
}

/** Each kind as OpenAI's APIs say it (type, code, HTTP status). */
const OPENAI: Record<Kind, ErrorFields> = {
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
const ANTHROPIC: Record<Kind, ErrorFields> = {
  rate_limit: { type: "rate_limit_error", code: null, message: "Rate limited.", status: 429 },
  quota: { type: "billing_error", code: null, message: "Billing problem.", status: 402 },
  auth: { type: "authentication_error", code: null, message: "invalid x-api-key", status: 401 },
  invalid: { type: "invalid_request_error", code: null, message: "Bad order.", status: 400 },
  server: { type: "overloaded_error", code: null, message: "Overloaded", status: 529 },
};

/** What `error.type` a kind is and how many requests it costs with TURNLOOP_MAX_RETRIES=1. */
const EXPECTED: Record<Kind, { type: string; requests: number }> = {
  rate_limit: { type: "rate_limit", requests: 2 },
  quota: { type: "quota", requests: 1 },
  auth: { type: "authentication", requests: 1 },
  invalid: { type: "invalid_request", requests: 1 },
  server: { type: "server", requests: 2 },
};

const sse = (event: string | undefined, data: object) =>
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
            response: {
              id: "resp_1",
              object: "response",
              created_at: 1,
              model: "gpt-5",
              status: "failed",
              output: [],
              error: { code: code ?? type, message },
              incomplete_details: null,
              usage: null,
            },
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

const KINDS = Object.keys(EXPECTED) as Kind[];

interface Case {
  wire: string;
  way: string;
  kind: Kind;
  prompt: string;
  reply: Reply;
  model: string;
}

const CASES: Case[] = Object.entries(WAYS).flatMap(([wire, { model, ways }]) =>
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
function caseOf(request: RecordedRequest): Case | undefined {
  const body = JSON.stringify(request.body);
  return CASES.find((one) => body.includes(one.prompt));
}

async function run(cli: CliFixtures["cli"], url: string, one: Case) {
  const result = await cli(
    ["--model", one.model, "--base-url", `${url}/v1`, "-p", one.prompt, "--output-format", "json"],
    {
      env: {
        OPENAI_API_KEY: "sk-test-key",
        ANTHROPIC_API_KEY: "sk-test-key",
        TURNLOOP_RETRY_BASE_DELAY_MS: "5",
        TURNLOOP_MAX_RETRIES: "1",
      },
    },
  );
  const parsed = JSON.parse(result.stdout) as { error?: { type: string; message: string } };
  return parsed.error;
}

describe("a model's error on every wire", () => {
  test("is typed by its own code or type and sent again only when transient", async ({
    cli,
    model,
  }) => {
    model.setResponder((request) => {
      const one = caseOf(request);
      return one === undefined ? { status: 500, body: "no case" } : one.reply;
    });
    const seen = [];
    const messages: Record<string, string | undefined> = {};
    for (const one of CASES) {
      const error = await run(cli, model.url, one);
      const requests = model.requests.filter((request) => caseOf(request) === one).length;
      seen.push({ wire: one.wire, way: one.way, kind: one.kind, type: error?.type, requests });
      messages[`${one.wire} ${one.way} ${one.kind}`] = error?.message;
    }
    expect(seen).toEqual(
      CASES.map(({ wire, way, kind }) => ({
        wire,
        way,
        kind,
        ...EXPECTED[kind],
        // Anthropic's transient server error here is its `overloaded_error`.
        ...(wire === "anthropic" && kind === "server" ? { type: "overloaded" } : {}),
      })),
    );
    // The words name the error's own code, not the event that carried it.
    expect([
      messages["responses error event quota"],
      messages["responses response.failed invalid"],
    ]).toEqual([
      "the server reported an error in its event stream (insufficient_quota): You exceeded your current plan.",
      "the server reported an error in its event stream (invalid_prompt): Invalid prompt.",
    ]);
  }, 600_000);
});

/** The Responses API's events of an answer whose text began ("Partial"). */
function responsesTextStart(): string[] {
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

describe("a model's error after text was shown", () => {
  test("is typed by its own code the same (the AI SDK's plain object), and never sent again", async ({
    cli,
    model,
  }) => {
    const seen = [];
    for (const kind of KINDS) {
      const { code, type, message } = OPENAI[kind];
      const frames = [
        ...responsesTextStart(),
        sse("error", {
          type: "error",
          sequence_number: 4,
          code: code ?? type,
          message,
          param: null,
        }),
      ];
      model.setResponder(() => ({ raw: frames }));
      const before = model.requests.length;
      const one = { ...CASES[0], model: "openai:gpt-5", prompt: `after text ${kind}` } as Case;
      const error = await run(cli, model.url, one);
      seen.push({ kind, type: error?.type, requests: model.requests.length - before });
    }
    expect(seen).toEqual(KINDS.map((kind) => ({ kind, type: EXPECTED[kind].type, requests: 1 })));
  }, 300_000);
});
