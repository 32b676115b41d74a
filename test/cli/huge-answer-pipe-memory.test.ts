import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// memory30 (bench/notes/memory30.md): `-p` with its output a pipe, given 5 MB of Markdown
// streamed in 100-character deltas that the model server sends in writes of a mebibyte (so the
// CLI reads the stream 64 KiB at a time, as from a fast server), peaked here at 108–112 MiB
// before this session (976df50: the events of a whole read parsed at once, the reply's pieces
// joined twice more by the terminal renderer, and what the stream stages held across a read
// left in the old generation until the reply's end) and at 85–87 MiB after, at a load of 17 on
// 2 cores. The bound fails the old figure. The answer is whole on stdout and in the log.

const RECORDER = new URL("./peak-memory-recorder.mjs", import.meta.url).pathname;
const BOUND_MIB = 98;

/** About `bytes` of Markdown ending with `end` (bench/notes/memory29.mjs's prose). */
function prose(bytes: number, end: string): string {
  const blocks: string[] = [];
  for (let index = 0, length = 0; length < bytes; index++) {
    const block = [
      `## Section ${index}\n\n`,
      `Paragraph ${index} says something about the code, with *emphasis* and a [link](https://example.com/${index}). It goes on for a while so that it wraps.\n\n`,
      `- item ${index} with **bold** and \`code\`\n- another item ${index}\n\n`,
      `\`\`\`ts\nconst value${index} = ${index};\n\`\`\`\n\n`,
    ][index % 4] as string;
    blocks.push(block);
    length += block.length;
  }
  return `${blocks.join("")}${end}`;
}

/** `answer` as an OpenAI Chat Completions event stream in 100-character deltas, in 1 MiB writes. */
function streamedInWrites(answer: string): string[] {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const writes: string[] = [];
  let write = "";
  for (let at = 0; at < answer.length; at += 100) {
    write += chunk({ content: answer.slice(at, at + 100) }, null);
    if (write.length >= 1 << 20) {
      writes.push(write);
      write = "";
    }
  }
  writes.push(`${write}${chunk({}, "stop")}data: [DONE]\n\n`);
  return writes;
}

describe("one huge answer, -p to a pipe", () => {
  test("5 MB in 100-character deltas: memory in proportion, the answer whole on stdout and in the log", async ({
    cli,
    model,
    home,
    loggedEvents,
  }) => {
    const peakFile = join(home, "peak");
    const answer = prose(5_000_000, "The last line of the answer: END.");
    model.enqueue({ raw: streamedInWrites(answer) });
    // The bin's young-generation cap (its first line; runCli starts dist/cli/main.js with node).
    const env = {
      NODE_OPTIONS: `--max-semi-space-size=2 --import ${RECORDER}`,
      TURNLOOP_TEST_PEAK_FILE: peakFile,
    };
    const result = await cli(["-p", "one long answer"], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${answer}\n`);
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(
      events.filter((event) => event.type === "assistant.message").map((event) => event.data),
    ).toMatchObject([{ content: answer }]);
    const [peakKiB = 0] = readFileSync(peakFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => Number(line.split(" ")[1]));
    expect(peakKiB / 1024).toBeLessThan(BOUND_MIB);
  }, 120_000);
});
