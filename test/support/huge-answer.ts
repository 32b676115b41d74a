import { readFileSync } from "node:fs";

// A huge streamed answer for the memory tests (test/cli/huge-answer-memory.test.ts,
// test/cli/huge-answer-pipe-memory.test.ts,
// test/acp/huge-answer-memory.test.ts), as bench/notes/memory29.mjs serves it.

/** The peak-memory recorder those tests load with `--import` (test/cli/peak-memory-recorder.mjs). */
export const PEAK_RECORDER = new URL("../cli/peak-memory-recorder.mjs", import.meta.url).pathname;

/** The largest peak (VmHWM) the recorder wrote to `file`, in MiB. */
export function peakMiB(file: string): number {
  const peaks = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => Number(line.split(" ")[1]));
  return Math.max(...peaks) / 1024;
}

/** About `bytes` of Markdown ending with `end` (bench/notes/memory29.mjs's prose). */
export function prose(bytes: number, end: string): string {
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
export function streamedInWrites(answer: string): string[] {
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
