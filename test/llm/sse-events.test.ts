import { describe, expect, test } from "vitest";
import { sseEventBytes } from "../../src/llm/sse-event-transform.js";

/** What the mapping gives back for `chunks` (each its own read), with `mapData` applied. */
async function relay(
  chunks: Array<string | Uint8Array>,
  mapData: (data: string) => string,
): Promise<string> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const events = sseEventBytes(mapData);
  let output = "";
  for (const chunk of chunks) {
    const bytes = events.take(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    output += bytes === undefined ? "" : decoder.decode(bytes, { stream: true });
  }
  const last = events.end();
  return output + (last === undefined ? decoder.decode() : decoder.decode(last));
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

  test("one-line events the mapper leaves as they are pass unchanged, wherever the chunks split", async () => {
    const stream = 'data:{"n":1}\n\ndata: {"n":"é"}\n\n\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(stream);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const seen: string[] = [];
      const output = await relay([bytes.subarray(0, cut), bytes.subarray(cut)], (data) => {
        seen.push(data);
        return data;
      });
      expect({ cut, seen, output }).toEqual({
        cut,
        seen: ['{"n":1}', '{"n":"é"}', "[DONE]"],
        output: stream,
      });
    }
  });

  test("changed and other events are written anew, in order, the unchanged ones kept", async () => {
    const stream =
      "data: keep\n\ndata: change\n\n: a comment\n\nevent: named\nid: 3\ndata: change\n\n" +
      "data: two\ndata: lines\n\ndata:\n\ndata: keep\n\ndata: cut off";
    for (let cut = 0; cut <= stream.length; cut++) {
      const seen: string[] = [];
      const output = await relay([stream.slice(0, cut), stream.slice(cut)], (data) => {
        seen.push(data);
        return data === "change" ? "changed\ntwice" : data;
      });
      expect({ cut, seen, output }).toEqual({
        cut,
        seen: ["keep", "change", "change", "two\nlines", "", "keep"],
        output:
          "data: keep\n\ndata: changed\ndata: twice\n\n" +
          "event: named\nid: 3\ndata: changed\ndata: twice\n\n" +
          "data: two\ndata: lines\n\ndata:\n\ndata: keep\n\n",
      });
    }
  });

  test("a stream that turns to CR line ends mid-way is parsed as a whole from there", async () => {
    const seen: string[] = [];
    const output = await relay(
      ["data: one\n\ndata: t", "wo\r\n\r", "\ndata: three\r\rdata: four\n\n"],
      (data) => {
        seen.push(data);
        return data;
      },
    );
    expect(seen).toEqual(["one", "two", "three", "four"]);
    expect(output).toBe("data: one\n\ndata: two\n\ndata: three\n\ndata: four\n\n");
  });
});

describe("one large event arriving in many small chunks (trial 33, finding 1)", () => {
  // The event is kept as a rope while it arrives; reading the rope's last character flattened
  // (copied) it once per chunk, so the work grew with the square of the event's size: 3 MiB in
  // 2 KiB chunks took about 10 s of CPU, a 30 MB answer minutes. The bound is CPU time of this
  // process, not elapsed time: well above the linear work (the whole test, setup included, took
  // under half a second at a load of 17 on two cores), a sixth of what the copies cost.
  test("costs work in proportion to its size, and passes the event on whole", () => {
    const delta = "y".repeat(3 * 1024 * 1024);
    const stream = new TextEncoder().encode(
      `data: {"choices":[{"delta":{"content":"${delta}"}}]}\n\ndata: [DONE]\n\n`,
    );
    const events = sseEventBytes((data) => data);
    const seen: number[] = [];
    const before = process.cpuUsage();
    for (let start = 0; start < stream.length; start += 2048) {
      const bytes = events.take(stream.subarray(start, start + 2048));
      if (bytes !== undefined) {
        seen.push(bytes.byteLength);
      }
    }
    const used = process.cpuUsage(before);
    expect(events.end()).toBeUndefined();
    // Both events come out whole when the last chunk completes them, as they came in.
    expect(seen).toEqual([stream.length]);
    expect((used.user + used.system) / 1000).toBeLessThan(1_500);
  });
});
