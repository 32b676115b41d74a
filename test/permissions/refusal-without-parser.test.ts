import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";

// Trial 45: under `-p` with no terminal, a command refused without asking showed 0.5–1.2 s on its
// line. Nothing waited: building the question for a person loaded the shell parser (mvdan-sh,
// 1.5 MB) to find the command's prefix, an "always" choice nobody could be offered. A gate that
// can ask nobody now refuses before the parser is loaded; one that can ask still offers the prefix.
// Run in a fresh `node` on the built modules (dist/): a test worker shares its modules between
// files (vitest.config.ts `isolate: false`), so another file may have loaded the parser already.

const DIST = new URL("../../dist/", import.meta.url).href;

/** Refuses with nobody to ask, then asks; says whether mvdan-sh was loaded after each. */
const SCRIPT = `
const { createRequire } = require("node:module");
const requireHere = createRequire(${JSON.stringify(`${DIST}permissions/permission-gate.js`)});
const parser = requireHere.resolve("mvdan-sh");
const parserLoaded = () => Object.keys(require.cache).includes(parser);
const callOf = (tool, command) => ({
  tool,
  input: { command },
  toolCall: { toolCallId: "call", name: "bash", arguments: { command } },
  signal: new AbortController().signal,
  start: () => undefined,
});
(async () => {
  const { createPermissionGate } = await import(${JSON.stringify(`${DIST}permissions/permission-gate.js`)});
  const { bashTool } = await import(${JSON.stringify(`${DIST}tools/index.js`)});
  const policy = () => ({ allowAllTools: false, allow: [], deny: [], folders: [] });
  const cwd = process.argv[1];
  const loadedBefore = parserLoaded();
  const refusing = createPermissionGate({ cwd, policy, emit: () => undefined, noAskReason: "nobody to ask" });
  const refused = await refusing(callOf(bashTool, "npm test --watch"));
  const loadedAfterRefusal = parserLoaded();
  let asked;
  const asking = createPermissionGate({
    cwd, policy, emit: () => undefined,
    ask: async (request) => { asked = request; return { decision: "deny", scope: "once" }; },
  });
  await asking(callOf(bashTool, "npm test --watch"));
  const result = { loadedBefore, refused, loadedAfterRefusal, prefix: asked?.prefix, loadedAfterAsk: parserLoaded() };
  process.stdout.write(JSON.stringify(result));
})();
`;

let cwd: string;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "turnloop-refusal-"));
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

test("a command refused with nobody to ask is refused before the shell parser loads; asked, it is offered its prefix", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", SCRIPT, cwd]);
  expect(JSON.parse(stdout)).toEqual({
    loadedBefore: false,
    refused: { allowed: false, reason: "nobody to ask" },
    loadedAfterRefusal: false,
    prefix: { rule: "bash(npm test *)", notCovered: [] },
    loadedAfterAsk: true,
  });
});
