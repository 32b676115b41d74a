import { describe, expect, test } from "vitest";
import { sseEventTransform } from "../../src/llm/openai-chat-quirks.js";

/** What the transform writes for `chunks` (each its own read), with `mapData` applied. */
async function relay(chunks: string[], mapData: (data: string) => string): Promise<string> {
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(encoder.encode(chunk));
      }
      controller.close();
    },
  });
  return new Response(source.pipeThrough(sseEventTransform(mapData))).text();
}

describe("the OpenAI Chat relay's SSE parsing (issue 27, item 5)", () => {
  test("a CR/LF pair split across chunks does not tear a multi-line event", async () => {
    const seen: string[] = [];
    const output = await relay(
      ['event: chunk\r\nid: 7\r\ndata: {"a":\r', "\ndata: 1}\r", "\n\r\n", "data: [DONE]\r\n\r\n"],
      (data) => {
        seen.push(data);
        return data.replace(/\s+/g, "");
      },
    );
    expect(seen).toEqual(['{"a":\n1}', "[DONE]"]);
    expect(output).toBe('event: chunk\nid: 7\ndata: {"a":1}\n\ndata: [DONE]\n\n');
  });

  test("an event cut off before its blank line is dropped, as SSE says", async () => {
    expect(await relay(["data: one\n\n", "data: tw"], (data) => data)).toBe("data: one\n\n");
  });
});
