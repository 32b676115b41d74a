// Run by test/tools/view-big-files.test.ts, view-huge-files.test.ts and edit-big-files.test.ts
// (tool-context.ts `runInMemoryChild`) with plain `node`, on the built tools (dist/, as the CLI
// tests run the built CLI; `npm test` builds first): no TypeScript loader, whose start-up took
// about 0.9 s of CPU a child (bench/notes/suite41.md). Runs the calls of the tool argv[4]
// (`view`, the default, or `edit`) given as JSON in argv[3] (an array of argument objects) at
// once in the folder argv[2], the model knowing the files whose hashes argv[5] gives (JSON:
// absolute path to tool-support.ts `textHash`), then prints
// `{ "grownKiB": …, "results": [{ "isError": …, "content": …, "knownFile": … }] }`: how far the
// process's peak resident memory (VmHWM, reset before the calls through /proc/self/clear_refs)
// rose above its resident memory before them.
import { readFileSync, writeFileSync } from "node:fs";
import { editTool } from "../../dist/tools/edit.js";
import { viewTool } from "../../dist/tools/view.js";
import { childToolContext } from "./child-tool-context.mjs";

/** The `field` line of /proc/self/status, in KiB. */
function statusKiB(field) {
  const status = readFileSync("/proc/self/status", "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
}

const [cwd = ".", calls = "[]", toolName = "view", hashes = "{}"] = process.argv.slice(2);
const knownHashes = new Map(Object.entries(JSON.parse(hashes)));
const context = childToolContext(cwd, { hashOf: (path) => knownHashes.get(path) });
// Each call parsed before the measure starts, run by the thunk.
const runs = JSON.parse(calls).map((each) => {
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
