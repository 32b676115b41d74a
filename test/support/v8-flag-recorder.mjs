/**
 * Loaded with `node --import` after module-recorder.mjs (test/cli/interactive-modules.test.ts):
 * appends the line `-- v8 flag <flags>` to the recorder's file (TURNLOOP_TEST_MODULE_LOG) each
 * time the process sets a V8 flag with `v8.setFlagsFromString` (or the same function of
 * `process.binding("v8")`, which the entries use: src/cli/turnloop.cts), so that a test sees whether a
 * flag was set before or after the input box (src/cli/v8-flags.ts says why that matters). It takes
 * `node:v8` and `node:fs` with `process.getBuiltinModule`, which the recorder's hooks do not see.
 */

const { appendFileSync } = process.getBuiltinModule("node:fs");

export const V8_FLAG = "-- v8 flag ";

const file = process.env.TURNLOOP_TEST_MODULE_LOG;
if (file !== undefined && file !== "") {
  const v8 = process.getBuiltinModule("node:v8");
  const setFlagsFromString = v8.setFlagsFromString;
  v8.setFlagsFromString = function recordedSetFlags(flags) {
    appendFileSync(file, `${V8_FLAG}${flags}\n`);
    return setFlagsFromString.call(this, flags);
  };
  // The entries set their flag through V8's binding (src/cli/turnloop.cts): seen there too.
  const binding = process.binding;
  process.binding = function recordedBinding(name) {
    const value = binding.call(this, name);
    return name === "v8" ? { ...value, setFlagsFromString: v8.setFlagsFromString } : value;
  };
}
