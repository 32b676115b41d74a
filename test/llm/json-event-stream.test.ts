import { parseJsonEventStream, safeParseJSON } from "@ai-sdk/provider-utils";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { jsonEventStream, sseEventBytes } from "../../src/llm/sse-event-transform.js";

// Round 3, session 14 (issue 26, figure 7d): the bundle's provider-utils parses a model's event
// stream in one stage (src/llm/sse-event-transform.ts, scripts/provider-utils-one-stage-events.mjs).
// Here both run on the same bytes, split the same way: every value must be the SDK's own.

const schema = z.object({ n: z.number(), text: z.string().optional() });

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(chunk);
      }
      controller.close();
    },
  });
}

async function valuesOf(stream: ReadableStream<unknown>): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of stream) {
    // A failed parse holds an error object: compare its message and kind, not its stack.
    values.push(JSON.parse(JSON.stringify(value, (_key, each) => errorShape(each))));
  }
  return values;
}

function errorShape(value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

/**
 * Both parsers' values for `bytes` cut at `cuts` (byte offsets), read from each parser's stream,
 * or with `piped`, from a provider model's stage piped after it (the path every request takes).
 */
async function both(bytes: Uint8Array, cuts: number[], piped = false) {
  const chunks = [0, ...cuts, bytes.length]
    .slice(1)
    .map((end, index, ends) => bytes.subarray(index === 0 ? 0 : (ends[index - 1] ?? 0), end));
  const after = (events: ReadableStream<unknown>) => (piped ? providerStage(events) : events);
  const sdk = await valuesOf(after(parseJsonEventStream({ stream: streamOf(chunks), schema })));
  const ours = await valuesOf(
    after(jsonEventStream(streamOf(chunks), (text) => safeParseJSON({ text, schema }))),
  );
  return { sdk, ours };
}

const encoder = new TextEncoder();

const STREAMS: Record<string, Uint8Array> = {
  "one-line events and [DONE]": encoder.encode(
    'data: {"n":1}\n\ndata:{"n":2,"text":"é ü 😀"}\n\ndata: [DONE]\n\n',
  ),
  "CR/LF line ends, names, ids, comments, a retry and multi-line data": encoder.encode(
    ': keep-alive\r\nevent: chunk\r\nid: 7\r\nretry: 10\r\ndata: {"n":\r\ndata: 3}\r\n\r\n' +
      'retry: soon\n\ndata: {"n":4}\r\r',
  ),
  "a chunk the schema refuses, a line that is no JSON, an event cut off at the end": encoder.encode(
    'data: {"n":"five"}\n\ndata: {oops\n\ndata: {"n":6}\n\ndata: {"n":7}',
  ),
  "a byte order mark, bad UTF-8 and a character cut by the end": new Uint8Array([
    0xef,
    0xbb,
    0xbf,
    ...encoder.encode('data: {"n":8,"text":"'),
    0xff,
    ...encoder.encode('"}\n\ndata: {"n":9}\n\n'),
    0xf0,
    0x9f,
  ]),
};

describe("jsonEventStream gives the values of the AI SDK's parseJsonEventStream", () => {
  for (const [name, bytes] of Object.entries(STREAMS)) {
    for (const piped of [false, true]) {
      const how = piped ? "through a provider's stage" : "read directly";
      test(`${name}, ${how}: whole, and cut at every byte`, async () => {
        const whole = await both(bytes, [], piped);
        expect(whole.ours).toEqual(whole.sdk);
        expect(whole.sdk.length).toBeGreaterThan(0);
        for (let cut = 1; cut < bytes.length; cut++) {
          const split = await both(bytes, [cut], piped);
          expect(split.ours, `cut at byte ${cut}`).toEqual(split.sdk);
        }
      });
    }
  }

  test("three cuts inside one four-byte character", async () => {
    const bytes = encoder.encode('data: {"n":10,"text":"😀"}\n\n');
    const at = bytes.indexOf(0xf0);
    const split = await both(bytes, [at + 1, at + 2, at + 3]);
    expect(split.ours).toEqual(split.sdk);
    expect(split.ours).toEqual([
      { success: true, value: { n: 10, text: "😀" }, rawValue: { n: 10, text: "😀" } },
    ]);
  });
});

/** Rewrites the data of event 2 (as the OpenAI-compatible stage rewrites some chunks). */
const rewriteTwo = (data: string) => data.replace('"n":2', '"n":20');

/**
 * `chunks` mapped by {@link sseEventBytes} with {@link rewriteTwo}, one chunk a read, as the
 * response body of openai-chat-quirks.ts: bytes that carry their events' data.
 */
function mappedBody(chunks: Uint8Array[]) {
  const events = sseEventBytes(rewriteTwo);
  const left = [...chunks];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = left.shift();
      const mapped = chunk === undefined ? events.end() : events.take(chunk);
      if (mapped !== undefined) {
        controller.enqueue(mapped);
      }
      if (chunk === undefined) {
        controller.close();
      }
    },
  });
}

describe("an OpenAI-compatible body's events, parsed once (sseEventBytes, then jsonEventStream)", () => {
  for (const [name, bytes] of Object.entries(STREAMS)) {
    test(`${name}: the SDK's values for the mapped bytes, whole and cut at every byte`, async () => {
      for (let cut = 0; cut < bytes.length; cut++) {
        const chunks = cut === 0 ? [bytes] : [bytes.subarray(0, cut), bytes.subarray(cut)];
        const sdk = await valuesOf(parseJsonEventStream({ stream: mappedBody(chunks), schema }));
        const ours = await valuesOf(
          jsonEventStream(mappedBody(chunks), (text) => safeParseJSON({ text, schema })),
        );
        expect(ours, `cut at byte ${cut}`).toEqual(sdk);
      }
    });
  }

  test("a rewritten event's data is the one parsed; the bytes' data is what parsing them gives", async () => {
    const bytes = encoder.encode(
      'data: {"n":1}\n\ndata: {"n":2}\n\nevent: x\r\ndata: {"n":\r\ndata: 3}\r\n\r\n',
    );
    const values = await valuesOf(
      jsonEventStream(mappedBody([bytes]), (text) => safeParseJSON({ text, schema })),
    );
    expect(values).toEqual([
      { success: true, value: { n: 1 }, rawValue: { n: 1 } },
      { success: true, value: { n: 20 }, rawValue: { n: 20 } },
      { success: true, value: { n: 3 }, rawValue: { n: 3 } },
    ]);
    const events = sseEventBytes(rewriteTwo);
    const mapped = events.take(bytes);
    expect(mapped?.eventData).toEqual(['{"n":1}', '{"n":20}', '{"n":\n3}']);
    expect(new TextDecoder().decode(mapped)).toBe(
      'data: {"n":1}\n\ndata: {"n":20}\n\nevent: x\ndata: {"n":\ndata: 3}\n\n',
    );
  });
});

/** A provider model's own stage after the events (`response.pipeThrough(new TransformStream(…))`). */
function providerStage(
  events: ReadableStream<unknown>,
  transform: (value: unknown) => unknown = (value) => value,
): ReadableStream<unknown> {
  return events.pipeThrough(
    new TransformStream<unknown, unknown>({
      transform: (value, controller) => controller.enqueue(transform(value)),
    }),
  );
}

/** A body that gives `chunks`, then fails with `failure` or waits (undefined); its cancel reason. */
function bodyOf(chunks: Uint8Array[], failure?: Error) {
  const seen: { cancelled?: unknown } = {};
  const left = [...chunks];
  const stream = new ReadableStream<Uint8Array>({
    // One chunk a read, as a socket gives them; then the failure, or nothing more.
    pull(controller) {
      const chunk = left.shift();
      if (chunk !== undefined) {
        controller.enqueue(chunk);
      } else if (failure !== undefined) {
        controller.error(failure);
      } else {
        return new Promise<void>(() => {});
      }
      return Promise.resolve();
    },
    cancel(reason) {
      seen.cancelled = reason;
    },
  });
  return { stream, seen };
}

/** What a reader of `stream` gets: its values, then how it ended (`done` or the error's message). */
async function outcome(stream: ReadableStream<unknown>) {
  const reader = stream.getReader();
  const values: unknown[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return { values, end: "done" };
      }
      values.push((value as { value?: unknown }).value ?? value);
    }
  } catch (error) {
    return { values, end: error instanceof Error ? error.message : String(error) };
  }
}

type EventParser = (body: ReadableStream<Uint8Array>) => ReadableStream<unknown>;

const PARSERS: Record<string, EventParser> = {
  sdk: (body) => parseJsonEventStream({ stream: body, schema }),
  ours: (body) => jsonEventStream(body, (text) => safeParseJSON({ text, schema })),
};

describe("a provider's stage after jsonEventStream: ends and failures pass as through the SDK's pipe", () => {
  const first = encoder.encode('data: {"n":1}\n\n');

  test("the body's failure reaches the provider's reader, after the values before it", async () => {
    const results = await Promise.all(
      Object.values(PARSERS).map((parse) =>
        outcome(providerStage(parse(bodyOf([first], new Error("socket hang up")).stream))),
      ),
    );
    expect(results[1]).toEqual(results[0]);
    expect(results[1]).toEqual({ values: [{ n: 1 }], end: "socket hang up" });
  });

  test("the provider's reader cancelling cancels the body with its reason", async () => {
    const cancelled = await Promise.all(
      Object.values(PARSERS).map(async (parse) => {
        const body = bodyOf([first]);
        const reader = providerStage(parse(body.stream)).getReader();
        await reader.read();
        await reader.cancel(new Error("stop"));
        await new Promise((resolve) => setTimeout(resolve, 0));
        return body.seen.cancelled instanceof Error
          ? body.seen.cancelled.message
          : body.seen.cancelled;
      }),
    );
    expect(cancelled).toEqual(["stop", "stop"]);
  });

  test("the provider's stage failing fails its reader and cancels the body", async () => {
    const results = await Promise.all(
      Object.values(PARSERS).map(async (parse) => {
        const body = bodyOf([first]);
        const stage = providerStage(parse(body.stream), () => {
          throw new Error("bad chunk");
        });
        const result = await outcome(stage);
        await new Promise((resolve) => setTimeout(resolve, 0));
        const reason = body.seen.cancelled;
        return { ...result, cancelled: reason instanceof Error ? reason.message : reason };
      }),
    );
    expect(results[1]).toEqual(results[0]);
    expect(results[1]).toEqual({ values: [], end: "bad chunk", cancelled: "bad chunk" });
  });
});

describe("a provider's stage after jsonEventStream: backpressure", () => {
  test("while the provider's stage is not read, the body is read no further than through the SDK's pipe", async () => {
    const pulled = await Promise.all(
      Object.values(PARSERS).map(async (parse) => {
        let pulls = 0;
        const endless = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls += 1;
            controller.enqueue(encoder.encode(`data: {"n":${pulls}}\n\n`));
          },
        });
        const stage = providerStage(parse(endless));
        for (let turn = 0; turn < 20; turn++) {
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
        await stage.cancel();
        return pulls;
      }),
    );
    const [sdk = 0, ours = 0] = pulled;
    expect(ours).toBeGreaterThan(0);
    expect(ours).toBeLessThanOrEqual(sdk);
  });
});

describe("a read that completes many events: each is parsed as it is taken", () => {
  // memory30: a socket read of 64 KiB completes some 300 events of a streamed answer; parsed all
  // at once, their values outlived V8's young generation while the loop handled them one by one
  // (bench/notes/memory30.md). Parsed as taken, the values a reader has not reached are not made.
  const many = encoder.encode(
    Array.from({ length: 300 }, (_, index) => `data: {"n":${index}}\n\n`).join("") +
      "data: [DONE]\n\n",
  );
  const bodies = {
    "a plain body": (chunks: Uint8Array[]) => streamOf(chunks),
    "an OpenAI-compatible body (sseEventBytes)": mappedBody,
  };
  for (const [name, body] of Object.entries(bodies)) {
    test(`${name}: the first value read, directly and through a provider's stage, is one parse`, async () => {
      for (const piped of [false, true]) {
        const parsed: string[] = [];
        const parse = (text: string) => {
          parsed.push(text);
          return safeParseJSON({ text, schema });
        };
        const events = jsonEventStream(body([many]), parse);
        const reader = (piped ? providerStage(events) : events).getReader();
        const first = await reader.read();
        expect(first.value).toMatchObject({ success: true, value: { n: 0 } });
        expect(parsed, piped ? "piped" : "read directly").toEqual(['{"n":0}']);
        let count = 1;
        while (!(await reader.read()).done) {
          count += 1;
        }
        expect(count).toBe(300);
        expect(parsed).toHaveLength(300);
      }
    });
  }
});
