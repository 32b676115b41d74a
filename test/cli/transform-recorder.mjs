/**
 * Loaded with `node --import` (test/cli/event-stream-stages.test.ts puts it in NODE_OPTIONS):
 * counts the `TransformStream`s the process makes through the global constructor (each web
 * stream stage of a model response but Node's own `TextDecoderStream`) and, when the process
 * exits, writes the count to the file named by TURNLOOP_TEST_TRANSFORM_LOG.
 */

import { writeFileSync } from "node:fs";

const file = process.env.TURNLOOP_TEST_TRANSFORM_LOG;
if (file !== undefined && file !== "") {
  let made = 0;
  const Original = globalThis.TransformStream;
  globalThis.TransformStream = class TransformStream extends Original {
    constructor(...parts) {
      super(...parts);
      made += 1;
    }
  };
  process.on("exit", () => {
    writeFileSync(file, `${made}\n`);
  });
}
