import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bubblewrapArguments } from "../../../src/tools/sandbox/bubblewrap-arguments.js";
import { hiddenPlacePaths } from "../../../src/tools/sandbox/real-paths.js";
import { lstatsDuring } from "../../support/counted-lstats.js";
import { removeTree } from "../../support/remove-tree.js";

// Which hidden places exist, read for each sandboxed command (src/tools/sandbox/
// bubblewrap-arguments.ts `hiddenPlaces`): each of the 70-odd default places was `lstat`ed for
// every command; now a listing of each folder holding several of them (the home, `~/.config`)
// rules out those that are not there (tools/sandbox/place-listings.ts), and only the others are
// `lstat`ed. The mounts are the same; a place made or removed between two commands counts.

let base = "";
beforeEach(async () => {
  // Not in /tmp: the sandbox's own `/tmp` replaces it, and leaves its hidden places out.
  base = await mkdtemp("/var/tmp/turnloop-hidden-listings-");
});
afterEach(async () => {
  await removeTree(base);
});

/** The hidden places' mounts of an argv: `--tmpfs <folder>` and `/dev/null <file>`, in `home`. */
function hiddenMounts(args: readonly string[], home: string): string[] {
  return args.flatMap((argument, index) =>
    argument.startsWith(`${home}/`) &&
    (args[index - 1] === "--tmpfs" || args[index - 1] === "/dev/null")
      ? [`${args[index - 1]} ~${argument.slice(home.length)}`]
      : [],
  );
}

describe("the sandbox's hidden places, read by folder", () => {
  it("lstats only the places the listings leave, mounts what exists, and sees a place made or removed since", async () => {
    const home = join(base, "home");
    const workspace = join(base, "workspace");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await mkdir(join(home, ".config", "gh"), { recursive: true });
    await writeFile(join(home, ".npmrc"), "//registry/:_authToken=t0ken\n");
    await mkdir(workspace);
    const settings = { cwd: workspace, home, turnloopHome: join(home, ".turnloop") };
    const places = new Set(hiddenPlacePaths(settings));
    const build = () =>
      lstatsDuring(() => bubblewrapArguments("workspace-write", settings, "true"));

    const first = await build();
    expect(hiddenMounts(first.result, home)).toEqual([
      "--tmpfs ~/.ssh",
      "/dev/null ~/.npmrc",
      "--tmpfs ~/.config/gh",
    ]);
    // Of the default places (more than 70), the three there are `lstat`ed; the others the
    // listings of the home and `~/.config` rule out. Places outside them (Docker's sockets,
    // the runtime folder) are `lstat`ed as before.
    const placesLstated = (seen: readonly string[]) =>
      seen.filter((path) => places.has(path) && path.startsWith(`${home}/`)).sort();
    expect(places.size).toBeGreaterThan(70);
    expect(placesLstated(first.seen)).toEqual(
      [".config/gh", ".npmrc", ".ssh"].map((name) => join(home, name)),
    );

    // Made and removed between two commands: the next command's mounts follow.
    await mkdir(join(home, ".aws"));
    await rm(join(home, ".ssh"), { recursive: true });
    const second = await build();
    expect(hiddenMounts(second.result, home)).toEqual([
      "--tmpfs ~/.aws",
      "/dev/null ~/.npmrc",
      "--tmpfs ~/.config/gh",
    ]);
    expect(placesLstated(second.seen)).toEqual(
      [".aws", ".config/gh", ".npmrc"].map((name) => join(home, name)),
    );
  });
});
