/**
 * Loaded with `node --import` (test/cli/huge-answer-memory.test.ts puts it in NODE_OPTIONS):
 * at exit, appends `<pid> <VmHWM in KiB>` (the process's peak resident memory, from
 * /proc/self/status) to the file named by TURNLOOP_TEST_PEAK_FILE.
 */

const file = process.env.TURNLOOP_TEST_PEAK_FILE;
if (file !== undefined && file !== "") {
  const { appendFileSync, readFileSync } = process.getBuiltinModule("node:fs");
  process.on("exit", () => {
    const peak = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0";
    appendFileSync(file, `${process.pid} ${peak}\n`);
  });
}
