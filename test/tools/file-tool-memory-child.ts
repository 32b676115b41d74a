// Run by test/tools/view-big-files.test.ts with `node --import tsx`: runs the `view` calls given
// as JSON in argv[3] (an array of argument objects) at once in the folder argv[2], then prints
// `{ "grownKiB": …, "results": [{ "isError": …, "content": … }] }`: how far the process's peak
// resident memory (VmHWM, reset before the calls through /proc/self/clear_refs) rose above its
// resident memory before them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KnownFiles } from "../../src/tools/tool-support.js";
import { viewTool } from "../../src/tools/view.js";
import { localCommands, localSecrets } from "../support/commands.js";

function statusKiB(field: string): number {
  const status = readFileSync("/proc/self/status", "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
}

const [cwd = ".", calls = "[]"] = process.argv.slice(2);
const context = {
  cwd,
  sessionDirectory: join(cwd, ".session"),
  toolCallId: "call_1",
  signal: new AbortController().signal,
  commands: localCommands(),
  secrets: localSecrets(),
  knownFiles: new KnownFiles(),
};
const inputs = (JSON.parse(calls) as Record<string, unknown>[]).map((each) =>
  viewTool.input.parse(each),
);
const before = statusKiB("VmRSS");
writeFileSync("/proc/self/clear_refs", "5");
const results = await Promise.all(inputs.map((input) => viewTool.execute(input, context)));
const grownKiB = statusKiB("VmHWM") - before;
const shown = results.map(({ isError, content }) => ({ isError, content }));
process.stdout.write(JSON.stringify({ grownKiB, results: shown }));
