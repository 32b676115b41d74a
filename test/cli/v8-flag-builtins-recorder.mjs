/**
 * Loaded with `node --import` (test/cli/v8-flags-when.test.ts puts it in NODE_OPTIONS): appends
 * to the file named by TURNLOOP_TEST_FLAG_LOG the line `flag <flags> <n>` each time the process
 * sets a V8 flag with `v8.setFlagsFromString` (or the same function of `process.binding("v8")`,
 * which the entries use: src/cli/turnloop.cts), where n is how many Node built-in modules were
 * loaded then (`process.moduleLoadList`), and at exit the line `builtin <name>` for each built-in
 * module, in load order. So a test sees which built-ins loaded after a flag was set: those Node
 * compiles from source instead of taking its code cache (src/cli/v8-flags.ts). It takes `node:v8`
 * and `node:fs` with `process.getBuiltinModule`.
 */

const file = process.env.TURNLOOP_TEST_FLAG_LOG;
if (file !== undefined && file !== "") {
  const { appendFileSync } = process.getBuiltinModule("node:fs");
  const v8 = process.getBuiltinModule("node:v8");
  const setFlagsFromString = v8.setFlagsFromString;
  v8.setFlagsFromString = function recordedSetFlags(flags) {
    appendFileSync(file, `flag ${flags} ${process.moduleLoadList.length}\n`);
    return setFlagsFromString.call(this, flags);
  };
  // The entries set their flag through V8's binding (src/cli/turnloop.cts): seen there too.
  const binding = process.binding;
  process.binding = function recordedBinding(name) {
    const value = binding.call(this, name);
    return name === "v8" ? { ...value, setFlagsFromString: v8.setFlagsFromString } : value;
  };
  process.on("exit", () => {
    appendFileSync(file, process.moduleLoadList.map((name) => `builtin ${name}\n`).join(""));
  });
}
