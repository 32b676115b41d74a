/**
 * Loaded with `node --import` after module-recorder.mjs (test/cli/interactive-modules.test.ts):
 * appends the line `-- input box drawn` to the recorder's file (TURNLOOP_TEST_MODULE_LOG) when the
 * interactive face first writes its status line under the input box (`Enter send`, the end of the
 * first frame), so that the modules recorded before that line are those loaded before the box was
 * on the screen. It takes `node:fs` with `process.getBuiltinModule`, which the recorder's hooks do
 * not see, so that the test can tell whether the CLI imported it before the box.
 */

const { appendFileSync } = process.getBuiltinModule("node:fs");

export const BOX_DRAWN = "-- input box drawn";

const file = process.env.TURNLOOP_TEST_MODULE_LOG;
if (file !== undefined && file !== "") {
  const write = process.stdout.write;
  let drawn = false;
  process.stdout.write = function markedWrite(chunk, ...rest) {
    if (!drawn && String(chunk).includes("Enter send")) {
      drawn = true;
      appendFileSync(file, `${BOX_DRAWN}\n`);
    }
    return write.call(this, chunk, ...rest);
  };
}
