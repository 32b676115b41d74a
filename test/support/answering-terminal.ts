import { PassThrough, Readable } from "node:stream";

/**
 * A stand-in for the user's terminal in a question's test: `input` gives `answer` (e.g. `"y\n"`)
 * then ends; `output` collects what the question wrote, read whole with `shown()`.
 */
export function answeringTerminal(answer: string): {
  input: Readable;
  output: PassThrough;
  shown: () => string;
} {
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  return { input: Readable.from([answer]), output, shown: () => shown };
}
