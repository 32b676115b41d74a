import fs, { realpathSync, symlinkSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, test } from "vitest";
import { judgeHiddenPlaces } from "../../src/permissions/hidden-places.js";
import { useTemporaryDirectory } from "../tools/tool-context.js";

// Issue 26, 3a: the hidden places are read again at the first call judged in each turn of the
// event loop (a place or link made before the turn counts). A place that its folder's listing
// names is resolved at once, without an `existsSync` first (place-listings.ts `listedPlaces`).
// Counted through node:fs itself (wrapped, its ESM exports synced), not through our modules.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** The calls of `existsSync` and `realpathSync.native` made by `work`, by name. */
function fsCallsIn(work: () => void): Record<string, number> {
  const counts: Record<string, number> = { existsSync: 0, realpath: 0 };
  const [exists, native] = [fs.existsSync, fs.realpathSync.native];
  fs.existsSync = (path) => {
    counts.existsSync = (counts.existsSync ?? 0) + 1;
    return exists(path);
  };
  fs.realpathSync.native = ((path: fs.PathLike) => {
    counts.realpath = (counts.realpath ?? 0) + 1;
    return native(path);
  }) as typeof fs.realpathSync.native;
  syncBuiltinESMExports();
  try {
    work();
  } finally {
    fs.existsSync = exists;
    fs.realpathSync.native = native;
    syncBuiltinESMExports();
  }
  return counts;
}

test("a view call in a new turn resolves each place its folder lists without asking whether it exists; what it refuses is unchanged", async () => {
  const base = realpathSync(directory);
  const home = join(base, "home");
  const elsewhere = join(base, "elsewhere");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await mkdir(join(elsewhere, "keys"), { recursive: true });
  await writeFile(join(elsewhere, "keys", "id"), "key");
  // Listed in the home (four places or more there): two exist, one through a link.
  symlinkSync(join(elsewhere, "keys"), join(home, ".aws"));
  const places = [".ssh", ".aws", ".gnupg", ".netrc", ".kube"].map((name) => join(home, name));
  // Not listed: its folder holds no other place.
  places.push(join(base, "vault"));
  const hiddenPlaces = { places };
  const judge = (path: string) =>
    judgeHiddenPlaces(hiddenPlaces, "view", [path, realpathSync(path)], [], base)?.refusal?.split(
      ":",
    )[0];
  await nextTurn();
  const refusals: Array<string | undefined> = [];
  const calls = fsCallsIn(() => {
    refusals.push(judge(join(elsewhere, "keys", "id")));
  });

  // One existsSync (the unlisted vault); a realpath for each listed place that is there.
  expect(calls).toEqual({ existsSync: 1, realpath: 2 });
  expect(refusals).toEqual([`${join(home, ".aws")} is hidden from the agent`]);
});
