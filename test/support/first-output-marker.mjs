/**
 * Loaded with `node --import` after module-recorder.mjs (test/cli/modules-loaded.test.ts): appends
 * the line `-- first stdout write` to the recorder's file (TURNLOOP_TEST_MODULE_LOG) when the
 * process first writes to stdout (`turnloop acp`: its `initialize` answer), so that the modules
 * recorded before that line are those loaded before the answer, whatever the process loads after
 * it while the test reads the file.
 */

import { appendFileSync } from "node:fs";

export const FIRST_OUTPUT = "-- first stdout write";

const file = process.env.TURNLOOP_TEST_MODULE_LOG;
if (file !== undefined && file !== "") {
  const write = process.stdout.write;
  let written = false;
  process.stdout.write = function markedWrite(chunk, ...rest) {
    if (!written) {
      written = true;
      appendFileSync(file, `${FIRST_OUTPUT}\n`);
    }
    return write.call(this, chunk, ...rest);
  };
}
