import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";

// What `.turnloop` and `.mcp.json` lead through is mounted read-only as a whole for a command
// (a mount point cannot be renamed), not only where they end: `.turnloop -> cfg/tl` fixes `cfg`.

let base: string;
let workspace: string;

beforeEach(async () => {
  base = realpathSync(await mkdtemp("/var/tmp/turnloop-configuration-chain-"));
  workspace = join(base, "workspace");
  await mkdir(join(workspace, "cfg", "tl"), { recursive: true });
  await writeFile(join(workspace, "cfg", "mcp.json"), "{}\n");
  await symlink("cfg/tl", join(workspace, ".turnloop"));
  await symlink("cfg/mcp.json", join(workspace, ".mcp.json"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The mounts of a workspace-write command after the private `/tmp` (no `.git` here). */
function configurationMountsOf(additionalDirectories: string[] = []): string[] {
  const settings = { cwd: workspace, home: base, turnloopHome: join(base, "home") };
  const args = sandboxWrap("workspace-write", { ...settings, additionalDirectories })("ls").args;
  const mounts = args.slice(args.indexOf("/tmp") + 1, args.indexOf("--setenv"));
  // Docker's socket, hidden where this machine has one.
  const hidden = mounts.indexOf("/dev/null");
  return hidden === -1 ? mounts : mounts.slice(0, hidden - 1);
}

it("mounts the folder both places lead through once, read-only", () => {
  expect(configurationMountsOf()).toEqual([
    ...["--ro-bind", join(workspace, "cfg"), join(workspace, "cfg")],
  ]);
});

it("a folder a link leads to further along is mounted too", async () => {
  await rm(join(workspace, "cfg", "tl"), { recursive: true });
  await mkdir(join(workspace, "settings"));
  await symlink("../settings", join(workspace, "cfg", "tl"));
  expect(configurationMountsOf()).toEqual([
    ...["--ro-bind", join(workspace, "cfg"), join(workspace, "cfg")],
    ...["--ro-bind", join(workspace, "settings"), join(workspace, "settings")],
  ]);
});

it("an added folder inside the fixed one stays writable, its own entries fixed after it", async () => {
  const added = join(workspace, "cfg", "added");
  await mkdir(join(added, "own"), { recursive: true });
  await symlink("own", join(added, ".turnloop"));
  expect(configurationMountsOf([added])).toEqual([
    ...["--ro-bind", join(workspace, "cfg"), join(workspace, "cfg")],
    ...["--bind", added, added],
    ...["--ro-bind", join(added, "own"), join(added, "own")],
  ]);
});

it("an added folder two down in the workspace: the folder between is fixed, the added one writable again", async () => {
  // The walk of the added folder's places passes `sub`, an entry of the workspace: moving `sub`
  // away would move the added folder's mounts with it, so `sub` is fixed as a chain's entry is.
  const added = join(workspace, "sub", "added");
  await mkdir(added, { recursive: true });
  expect(configurationMountsOf([added])).toEqual([
    ...["--ro-bind", join(workspace, "cfg"), join(workspace, "cfg")],
    ...["--ro-bind", join(workspace, "sub"), join(workspace, "sub")],
    ...["--bind", added, added],
  ]);
});
