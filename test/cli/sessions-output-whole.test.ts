import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial 24, finding 3: on a full disk `sessions view` left an empty view.html in the session's
// folder and `sessions export --out` a cut file over a good older export. Both now write a new
// file and rename it over the target, removing it when the write fails. bash `ulimit -f` makes
// a write past 1 KiB fail with EFBIG, as a full disk fails with ENOSPC (Node ignores SIGXFSZ).

test("an export or a view that cannot be written whole leaves the older file, and nothing else", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue({ text: "a reply long enough ".repeat(100) });
  const sessionId = printedSessionId((await cli(["-p", "first"])).stderr);
  const out = join(home, "keep.out");
  await writeFile(out, "a good older export\n");
  const homeBefore = (await readdir(home)).sort();

  const exported = await cli(["sessions", "export", sessionId, "--format", "html", "--out", out], {
    prefix: "ulimit -f 1",
  });
  expect(exported.code).toBe(1);
  expect(exported.stderr).toMatch(new RegExp(`^turnloop: cannot write ${out}: EFBIG`));
  expect(await readFile(out, "utf8")).toBe("a good older export\n");
  expect((await readdir(home)).sort()).toEqual(homeBefore);

  const folder = join(home, "session-state", sessionId);
  const folderBefore = (await readdir(folder)).sort();
  const viewed = await cli(["sessions", "view", sessionId, "--no-open"], {
    prefix: "ulimit -f 1",
  });
  expect(viewed.code).toBe(1);
  expect(viewed.stderr).toContain("EFBIG");
  expect((await readdir(folder)).sort()).toEqual(folderBefore);
});
