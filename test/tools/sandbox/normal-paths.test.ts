/**
 * The hidden places' paths spelled without `path.resolve` where they are spelled as it spells
 * them already (src/tools/sandbox/policy.ts `normalAbsolutePath`, real-paths.ts `hiddenPlacePaths`; the calls
 * were a cause of V8 optimising Node's path code: bench/notes/rss33.md): whatever the spelling, the
 * answer is `path.resolve`'s.
 */

import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { normalAbsolutePath } from "../../../src/tools/sandbox/policy.js";
import { hiddenPlacePaths } from "../../../src/tools/sandbox/real-paths.js";

const ABSOLUTE = [
  "/",
  "/home/ada",
  "/home/ada/",
  "//home//ada",
  "/home/./ada",
  "/home/ada/.",
  "/home/x/../ada",
  "/home/ada/..",
  "/..",
  "/home/.ada/..ada/ada../.../a.b",
];
const RELATIVE = [
  ".ssh",
  "~/.ssh",
  ".config/gh",
  "..ssh",
  "...",
  "a/../b",
  "./a",
  "a/",
  "a//b",
  "..",
  "~/..",
  ".",
  "",
];

describe("paths spelled as path.resolve spells them", () => {
  it("normalAbsolutePath answers path.resolve's path, the same string when it is one", () => {
    const answers = ABSOLUTE.map((path) => normalAbsolutePath(path));
    expect(answers).toEqual(ABSOLUTE.map((path) => resolve(path)));
    // A path spelled so already is given back as it is.
    expect(normalAbsolutePath("/home/.ada/..ada")).toBe("/home/.ada/..ada");
  });

  it("hiddenPlacePaths reads each relative entry against each home as path.resolve does", () => {
    for (const home of ABSOLUTE) {
      const places = hiddenPlacePaths({ home, hidden: RELATIVE, turnloopHome: "/t" });
      const expected = RELATIVE.map((entry) => resolve(home, entry.replace(/^~\//, "")));
      expect({ home, places: places.slice(0, RELATIVE.length) }).toEqual({
        home,
        places: expected,
      });
    }
  });
});
