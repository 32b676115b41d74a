import { expect, test } from "vitest";
import { checkChatChunk, UNSURE } from "../../src/llm/chat-chunk-check.js";
import { bytesAllocatedIn } from "../support/heap-sampling.js";

// Issue 26, 3d: the hand check runs once per streamed chunk, mostly in code V8 has not optimised
// yet (a session's few hundred chunks). Copying a chunk's fields makes the copies it returns and
// nothing more: `for…of` over the field names made an iterator and a result object per name
// (15 KiB of a tool turn's 410, bench/notes/turn37.md). Its own file, so that no other test has
// made the check's code hot first.

/** The chunks of a reply as a server streams them: text deltas, a tool call, the end. */
const REPLY_CHUNKS: string[] = [
  '{"id":"c-1","object":"chat.completion.chunk","created":1733000000,"model":"bench-model","choices":[{"index":0,"delta":{"role":"assistant","content":"Looking"},"finish_reason":null}]}',
  '{"id":"c-1","object":"chat.completion.chunk","created":1733000000,"model":"bench-model","choices":[{"index":0,"delta":{"content":" at it"},"finish_reason":null}]}',
  '{"id":"c-1","object":"chat.completion.chunk","created":1733000000,"model":"bench-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call-1","type":"function","function":{"name":"view","arguments":"{\\"path\\":\\"notes.md\\"}"}}]},"finish_reason":null}]}',
  '{"id":"c-1","object":"chat.completion.chunk","created":1733000000,"model":"bench-model","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
];

test("copying a streamed chunk's fields allocates nothing beyond the copies", async () => {
  const chunks: unknown[] = Array.from({ length: 250 }, () =>
    REPLY_CHUNKS.map((text): unknown => JSON.parse(text)),
  ).flat();
  // V8 makes each function's feedback vector and baseline code within its first calls: a few
  // replies first (too few to make the check hot).
  for (const chunk of chunks.slice(0, 40)) {
    checkChatChunk(chunk);
  }
  let answered = 0;
  const bytes = await bytesAllocatedIn("copyNullish", () => {
    for (const chunk of chunks) {
      answered += checkChatChunk(chunk) === UNSURE ? 0 : 1;
    }
  });
  // An iterator per field name was 290–380 bytes a chunk; the copies' own property stores
  // read 1–3 bytes a chunk on average here.
  expect({ answered, under16BytesEach: bytes < 16 * chunks.length }).toEqual({
    answered: 1_000,
    under16BytesEach: true,
  });
});
