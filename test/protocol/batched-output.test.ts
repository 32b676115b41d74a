import { once } from "node:events";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { batchedOutput } from "../../src/protocol/batched-output.js";

/** A target that records each write it is handed, as text. */
function recordingTarget(): { target: Writable; writes: string[] } {
  const writes: string[] = [];
  const target = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      writes.push(chunk.toString("utf8"));
      callback();
    },
  });
  return { target, writes };
}

describe("batchedOutput", () => {
  it("hands the target the first write at once and the writes of the same turn as one", async () => {
    const { target, writes } = recordingTarget();
    const output = batchedOutput(target);
    output.write('{"id":1}\n');
    output.write('{"id":2}\n');
    output.write('{"id":3}\n');
    output.end();
    await once(output, "finish");
    expect(writes).toEqual(['{"id":1}\n', '{"id":2}\n{"id":3}\n']);
  });

  it("keeps every byte and their order over many turns", async () => {
    const { target, writes } = recordingTarget();
    const output = batchedOutput(target);
    const lines = Array.from({ length: 50 }, (_, index) => `line ${index}\n`);
    for (const [index, line] of lines.entries()) {
      output.write(line);
      if (index % 7 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    output.end();
    await once(output, "finish");
    expect(writes.join("")).toBe(lines.join(""));
    expect(writes.length).toBeLessThan(lines.length);
  });

  it.each([
    [
      "text in another encoding",
      ["first ✓\n", "délai 🙂\n", ["caf\u00e9\n", "latin1"], "then ✓\n"],
    ],
    ["a buffer", ["first ✓\n", "délai 🙂\n", Buffer.from([0xff, 0x00, 0x0a]), "then ✓\n"]],
  ] as const)("keeps every byte of a burst of UTF-8 text with %s", async (_name, writes) => {
    const received: Buffer[] = [];
    const target = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        received.push(chunk);
        callback();
      },
    });
    const output = batchedOutput(target);
    const expected: Buffer[] = [];
    for (const write of writes) {
      if (typeof write === "string") {
        output.write(write);
        expected.push(Buffer.from(write, "utf8"));
      } else if (Buffer.isBuffer(write)) {
        output.write(write);
        expected.push(write);
      } else {
        const [text, encoding] = write as readonly [string, BufferEncoding];
        output.write(text, encoding);
        expected.push(Buffer.from(text, encoding));
      }
    }
    output.end();
    await once(output, "finish");
    // The first write alone, then the rest of its turn as one write.
    expect(received).toEqual([expected[0], Buffer.concat(expected.slice(1))]);
  });

  it("fails with the target's write error", async () => {
    const target = new Writable({
      write: (_chunk, _encoding, callback) => callback(new Error("EPIPE: the reader is gone")),
    });
    target.on("error", () => undefined);
    const output = batchedOutput(target);
    const failed = once(output, "error");
    output.write("lost\n");
    await expect(failed).resolves.toEqual([new Error("EPIPE: the reader is gone")]);
  });
});
