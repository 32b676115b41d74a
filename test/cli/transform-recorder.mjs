/**
 * Loaded with `node --import` (test/cli/event-stream-stages.test.ts puts it in NODE_OPTIONS):
 * counts the `TransformStream`s the process makes through the global constructor (each web
 * stream stage of a model response but Node's own `TextDecoderStream`) and the `ReadableStream`s
 * made through the global constructor or a class extending it (Node's own, such as a
 * `TransformStream`'s sides, are not counted) and, when the process exits, writes both counts to
 * the file named by TURNLOOP_TEST_TRANSFORM_LOG: `<TransformStreams> <ReadableStreams>`.
 */

import { writeFileSync } from "node:fs";

const file = process.env.TURNLOOP_TEST_TRANSFORM_LOG;
if (file !== undefined && file !== "") {
  let transforms = 0;
  let readables = 0;
  const OriginalTransform = globalThis.TransformStream;
  globalThis.TransformStream = class TransformStream extends OriginalTransform {
    constructor(...parts) {
      super(...parts);
      transforms += 1;
    }
  };
  const OriginalReadable = globalThis.ReadableStream;
  globalThis.ReadableStream = class ReadableStream extends OriginalReadable {
    constructor(...parts) {
      super(...parts);
      readables += 1;
    }
  };
  process.on("exit", () => {
    writeFileSync(file, `${transforms} ${readables}\n`);
  });
}
