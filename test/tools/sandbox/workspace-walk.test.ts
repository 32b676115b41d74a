import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";
import { WALK_FOLDER_LIMIT, WorkspaceWalk } from "../../../src/tools/sandbox/workspace-walk.js";

// The walk that finds the workspace's `.git` entries and its folders' tool configuration
// (src/tools/sandbox/workspace-walk.ts): every folder down, kept from one walk to the next while
// a folder is unchanged, at most a stated number of folders before a command.

let base: string;
let workspace: string;

beforeEach(async () => {
  base = realpathSync(await mkdtemp("/var/tmp/turnloop-workspace-walk-"));
  workspace = join(base, "workspace");
  for (const folder of ["a/b/c", "x/y/.vscode", "node_modules/p", "org/repo/.git", "d/e/f/.git"]) {
    await mkdir(join(workspace, folder), { recursive: true });
  }
  for (const file of ["a/b/.npmrc", "a/b/c/.envrc", "node_modules/p/.npmrc", ".npmrc"]) {
    await writeFile(join(workspace, file), "x\n");
  }
  await mkdir(join(base, "outside", "deep"), { recursive: true });
  await writeFile(join(base, "outside", "deep", ".envrc"), "x\n");
  await symlink(join(base, "outside"), join(workspace, "a", "link"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const inWorkspace = (paths: readonly string[]) =>
  paths.map((path) => path.slice(workspace.length + 1)).sort();

it("finds tool configuration and .git at any depth, not in node_modules nor through a link", async () => {
  const walk = new WorkspaceWalk();
  const found = walk.entriesOf([workspace]);
  expect({ git: inWorkspace(found.git), nested: inWorkspace(found.nested) }).toEqual({
    git: ["d/e/f/.git", "org/repo/.git"],
    nested: ["a/b/.npmrc", "a/b/c/.envrc", "x/y/.vscode"],
  });
  // What a later walk finds after a change four folders down, and after one is removed.
  await mkdir(join(workspace, "a", "b", "c", "g"));
  await writeFile(join(workspace, "a", "b", "c", "g", ".yarnrc.yml"), "x\n");
  await rm(join(workspace, "x", "y", ".vscode"), { recursive: true });
  expect(inWorkspace(walk.entriesOf([workspace]).nested)).toEqual([
    "a/b/.npmrc",
    "a/b/c/.envrc",
    "a/b/c/g/.yarnrc.yml",
  ]);
});

it("enters at most WALK_FOLDER_LIMIT folders before a command; the walk after it enters those and every folder made since", async () => {
  // Breadth first, in name order: `wide`'s folders fill the limit, so `x/y` and `a/b/c`, one level
  // deeper, are past it (their tool configuration stays writable: README, "Sandbox").
  for (let index = 0; index <= WALK_FOLDER_LIMIT; index++) {
    await mkdir(join(workspace, `wide/f${String(index).padStart(4, "0")}`), { recursive: true });
  }
  const walk = new WorkspaceWalk();
  const before = walk.entriesOf([workspace]);
  expect(inWorkspace(before.nested)).toEqual(["a/b/.npmrc"]);
  await mkdir(join(workspace, "new", "deep", "er"), { recursive: true });
  await writeFile(join(workspace, "new", "deep", "er", ".envrc"), "x\n");
  await writeFile(join(workspace, "x", "y", ".npmrc"), "x\n");
  const after = walk.entriesOf([workspace], { after: true });
  expect(inWorkspace(after.nested)).toEqual(["a/b/.npmrc", "new/deep/er/.envrc"]);
});

it("mounts the tool configuration at any depth read-only over itself, and no folder above it", () => {
  const settings = { cwd: workspace, home: base, turnloopHome: join(base, "home") };
  const args = sandboxWrap("workspace-write", settings)("ls").args;
  const readOnly = args.flatMap((arg, index) =>
    arg === "--ro-bind" && args[index + 1]?.startsWith(`${workspace}/`)
      ? [args[index + 1] ?? ""]
      : [],
  );
  expect(inWorkspace(readOnly)).toEqual([".npmrc", "a/b/.npmrc", "a/b/c/.envrc", "x/y/.vscode"]);
});
