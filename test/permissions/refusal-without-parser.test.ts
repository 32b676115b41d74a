import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { PermissionRequest } from "../../src/permissions/permission-decision.js";
import { createPermissionGate } from "../../src/permissions/permission-gate.js";
import { bashTool } from "../../src/tools/index.js";

// Trial 45: under `-p` with no terminal, a command refused without asking showed 0.5–1.2 s on its
// line. Nothing waited: building the question for a person loaded the shell parser (mvdan-sh,
// 1.5 MB) to find the command's prefix, an "always" choice nobody could be offered. A gate that
// can ask nobody now refuses before the parser is loaded; one that can ask still offers the prefix.

let cwd: string;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "turnloop-refusal-"));
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Whether this process has loaded mvdan-sh (src/permissions/shell-commands.ts requires it). */
function parserLoaded(): boolean {
  const path = createRequire(import.meta.url).resolve("mvdan-sh");
  return Object.keys(createRequire(import.meta.url).cache).includes(path);
}

function callOf(command: string) {
  return {
    tool: bashTool,
    input: { command },
    toolCall: { toolCallId: "call", name: "bash", arguments: { command } },
    signal: new AbortController().signal,
    start: () => undefined,
  };
}

const policy = () => ({ allowAllTools: false, allow: [], deny: [], folders: [] });

test("a command refused with nobody to ask is refused before the shell parser loads; asked, it is offered its prefix", async () => {
  expect(parserLoaded()).toBe(false);
  const refusing = createPermissionGate({
    cwd,
    policy,
    emit: () => undefined,
    noAskReason: "nobody to ask",
  });
  expect(await refusing(callOf("npm test --watch"))).toEqual({
    allowed: false,
    reason: "nobody to ask",
  });
  expect(parserLoaded()).toBe(false);

  let asked: PermissionRequest | undefined;
  const asking = createPermissionGate({
    cwd,
    policy,
    emit: () => undefined,
    ask: async (request) => {
      asked = request;
      return { decision: "deny", scope: "once" };
    },
  });
  await asking(callOf("npm test --watch"));
  expect(asked?.prefix).toEqual({ rule: "bash(npm test *)", notCovered: [] });
  expect(parserLoaded()).toBe(true);
});
