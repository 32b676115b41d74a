import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { permissionDecider } from "../../src/permissions/permission-decision.js";
import { globTool, grepTool } from "../../src/tools/index.js";

/** Named before the tests are collected: the absolute pattern below holds it. */
const root = join(tmpdir(), `turnloop-glob-scope-${process.pid}`);
const cwd = join(root, "workspace");

beforeAll(async () => {
  await mkdir(join(cwd, "src"), { recursive: true });
  await mkdir(join(root, "outside"));
  await writeFile(join(root, "outside", "s.txt"), "secret-out");
  await symlink(join(root, "outside"), join(cwd, "od"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What the default rules (no flag) decide for one glob or grep call. */
async function decide(tool: typeof globTool | typeof grepTool, input: object): Promise<string> {
  const decider = permissionDecider(cwd, () => ({
    allowAllTools: false,
    allow: [],
    deny: [],
    folders: [],
  }));
  const toolCall = { toolCallId: "call", name: tool.name, arguments: { ...input } };
  return (await decider({ tool, input, toolCall })).kind;
}

describe("glob through a symlink leading outside the workspace asks, as grep does (trial finding 16)", () => {
  test.each<[object, string]>([
    [{ pattern: "od/**" }, "ask"],
    [{ pattern: "od/*.txt" }, "ask"],
    [{ pattern: "**", path: "od" }, "ask"],
    [{ pattern: `${join(root, "outside")}/**` }, "ask"],
    [{ pattern: "../outside/*" }, "ask"],
    [{ pattern: "**/*.ts" }, "allow"],
    [{ pattern: "src/**/*.ts" }, "allow"],
    [{ pattern: "src/missing/*.ts" }, "allow"],
  ])("glob %j: %s", async (input, expected) => {
    expect(await decide(globTool, input)).toBe(expected);
  });

  test("grep of the same link asks", async () => {
    expect(await decide(grepTool, { pattern: "secret", path: "od" })).toBe("ask");
  });
});
