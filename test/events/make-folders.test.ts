import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { makeFolders, makeFoldersSync } from "../../src/events/errors.js";

/**
 * `mkdir -p` that always ends (src/events/errors.ts): Node's `mkdir(path, { recursive:
 * true })` never returns below `/proc`, where a new folder gets `ENOENT` although its parent is
 * there (a trial's `TURNLOOP_HOME=/proc/nope` spun at full CPU and ignored SIGTERM).
 */

let root = "";
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "turnloop-folders-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const ways = [
  ["makeFolders", (path: string, mode?: number) => makeFolders(path, mode)],
  [
    "makeFoldersSync",
    (path: string, mode?: number) => Promise.resolve().then(() => makeFoldersSync(path, mode)),
  ],
] as const;

describe.each(ways)("%s", (_name, make) => {
  test("makes each missing folder, new ones with the mode, and accepts one that exists", async () => {
    const path = join(root, "a", "b", "c");
    await make(path, 0o700);
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe("700");
    expect(((await stat(join(root, "a"))).mode & 0o777).toString(8)).toBe("700");
    await expect(make(path, 0o700)).resolves.toBeUndefined();
  });

  test("a file at the path is EEXIST, a file above it ENOTDIR, as Node's own mkdir says", async () => {
    await writeFile(join(root, "file"), "x");
    await expect(make(join(root, "file"))).rejects.toMatchObject({ code: "EEXIST" });
    await expect(make(join(root, "file", "below", "deeper"))).rejects.toMatchObject({
      code: "ENOTDIR",
    });
  });

  test.runIf(existsSync("/proc/self"))(
    "below /proc (a parent that takes no new folder): ENOENT naming the parent, at once",
    async () => {
      await expect(make("/proc/turnloop-no-such-folder/session-state/x")).rejects.toMatchObject({
        code: "ENOENT",
        message:
          "ENOENT: /proc exists but takes no new folder, mkdir '/proc/turnloop-no-such-folder'",
      });
    },
  );

  test("a folder made meanwhile by someone else is no error", async () => {
    await mkdir(join(root, "x"));
    await expect(make(join(root, "x", "y"))).resolves.toBeUndefined();
  });
});
