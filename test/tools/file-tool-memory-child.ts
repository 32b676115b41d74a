// Run by test/tools/view-big-files.test.ts and edit-big-files.test.ts with `node --import tsx`:
// runs the calls of the tool argv[4] (`view`, the default, or `edit`) given as JSON in argv[3] (an
// array of argument objects) at once in the folder argv[2], the model knowing the files whose
// hashes argv[5] gives (JSON: absolute path to tool-support.ts `textHash`), then prints
// `{ "grownKiB": …, "results": [{ "isError": …, "content": …, "knownFile": … }] }`: how far the
// process's peak resident memory (VmHWM, reset before the calls through /proc/self/clear_refs)
// rose above its resident memory before them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { editTool } from "../../src/tools/edit.js";
import { viewTool } from "../../src/tools/view.js";
import { localCommands, localSecrets } from "../support/commands.js";

function statusKiB(field: string): number {
  const status = readFileSync("/proc/self/status", "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
}

const [cwd = ".", calls = "[]", toolName = "view", hashes = "{}"] = process.argv.slice(2);
const knownHashes = new Map(Object.entries(JSON.parse(hashes) as Record<string, string>));
const context = {
  cwd,
  sessionDirectory: join(cwd, ".session"),
  toolCallId: "call_1",
  signal: new AbortController().signal,
  commands: localCommands(),
  secrets: localSecrets(),
  knownFiles: { hashOf: (path: string) => knownHashes.get(path) },
};
// Each call parsed before the measure starts, run by the thunk.
const runs = (JSON.parse(calls) as Record<string, unknown>[]).map((each) => {
  if (toolName === "edit") {
    const input = editTool.input.parse(each);
    return () => editTool.execute(input, context);
  }
  const input = viewTool.input.parse(each);
  return () => viewTool.execute(input, context);
});
const before = statusKiB("VmRSS");
writeFileSync("/proc/self/clear_refs", "5");
const results = await Promise.all(runs.map((run) => run()));
const grownKiB = statusKiB("VmHWM") - before;
const shown = results.map(({ isError, content, knownFile }) => ({ isError, content, knownFile }));
process.stdout.write(JSON.stringify({ grownKiB, results: shown }));
