// What an edit keeps of the file it changes (trial 41 F2–F4): the file's refusals, owner, group,
// mode and inode where a rename over it would lose them. The cases of another user run the tools
// in a child process as `nobody` (setpriv); they need root, as CI runs (skipped, and said so, else).
import { execFileSync } from "node:child_process";
import {
  chmod,
  chown,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTool } from "../../src/tools/create.js";
import { editTool } from "../../src/tools/edit.js";
import { makeContext, runTool } from "./tool-context.js";

const IS_ROOT = process.getuid?.() === 0;
const title = (text: string) =>
  IS_ROOT ? text : `${text} (skipped: needs root to own files as nobody; CI runs as root)`;

function idOf(flag: "-u" | "-g", user: string): number {
  return Number(execFileSync("id", [flag, user], { encoding: "utf8" }).trim());
}

let directory = "";
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-identity-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Runs `tool` with `args` in `directory` as the user nobody: what the model reads. */
function runAsNobody(tool: "edit" | "create", args: object): { isError: boolean; content: string } {
  const child = new URL("./file-write-child.mjs", import.meta.url).pathname;
  const output = execFileSync(
    "setpriv",
    [
      "--reuid=nobody",
      "--regid=nogroup",
      "--clear-groups",
      process.execPath,
      child,
      directory,
      tool,
      JSON.stringify(args),
    ],
    { encoding: "utf8" },
  );
  return JSON.parse(output) as { isError: boolean; content: string };
}

describe.runIf(IS_ROOT)(title("edit and create as a user who may not write the file"), () => {
  beforeEach(async () => {
    await chown(directory, idOf("-u", "nobody"), idOf("-g", "nobody"));
  });

  it("refuse a read-only (0444) file in the shell's words, naming the path given", async () => {
    const path = join(directory, "ro.txt");
    await writeFile(path, "ro content\n");
    await chown(path, idOf("-u", "nobody"), idOf("-g", "nobody"));
    await chmod(path, 0o444);
    const before = await stat(path);
    expect([
      runAsNobody("edit", { path: "ro.txt", old_str: "ro", new_str: "rw" }),
      runAsNobody("create", { path: "ro.txt", file_text: "new\n", overwrite: true }),
    ]).toEqual([
      {
        isError: true,
        content: "edit failed: Permission denied: ro.txt; the file was not changed.",
      },
      {
        isError: true,
        content: "create failed: Permission denied: ro.txt; the file was not changed.",
      },
    ]);
    const after = await stat(path);
    expect([await readFile(path, "utf8"), after.ino, after.mode & 0o7777]).toEqual([
      "ro content\n",
      before.ino,
      0o444,
    ]);
    expect(await readdir(directory)).toEqual(["ro.txt"]);
  });

  it("edit a writable file in a folder it may not write (0555) in place", async () => {
    const folder = join(directory, "rodir");
    await mkdir(folder);
    const path = join(folder, "w.txt");
    await writeFile(path, "w content\n");
    await chown(path, idOf("-u", "nobody"), idOf("-g", "nobody"));
    await chown(folder, idOf("-u", "nobody"), idOf("-g", "nobody"));
    await chmod(folder, 0o555);
    const before = await stat(path);
    const result = runAsNobody("edit", { path: "rodir/w.txt", old_str: "w content", new_str: "W" });
    expect(result).toEqual({
      isError: false,
      content: `File ${path} updated with changes.\n\n@@ -1,1 +1,1 @@\n-w content\n+W`,
    });
    expect([await readFile(path, "utf8"), (await stat(path)).ino]).toEqual(["W\n", before.ino]);
    expect(runAsNobody("create", { path: "rodir/new.txt", file_text: "x" })).toEqual({
      isError: true,
      content: "create failed: Permission denied: rodir/new.txt; nothing was written.",
    });
    expect(await readdir(folder)).toEqual(["w.txt"]);
  });

  it("keep the owner of a file it may write but cannot give away (group-writable)", async () => {
    const path = join(directory, "shared.txt");
    await writeFile(path, "shared\n");
    await chown(path, 0, idOf("-g", "nobody"));
    await chmod(path, 0o664);
    const before = await stat(path);
    const result = runAsNobody("edit", { path: "shared.txt", old_str: "shared", new_str: "both" });
    expect(result.isError).toBe(false);
    const after = await stat(path);
    expect([await readFile(path, "utf8"), after.ino, after.uid, after.gid]).toEqual([
      "both\n",
      before.ino,
      0,
      idOf("-g", "nobody"),
    ]);
  });
});

describe.runIf(IS_ROOT)(title("edit and create as root"), () => {
  it("keep the owner, group and mode (set-user-ID too) of another user's file", async () => {
    const path = join(directory, "owned.sh");
    await writeFile(path, "#!/bin/sh\necho owned\n");
    await chown(path, idOf("-u", "nobody"), idOf("-g", "nobody"));
    await chmod(path, 0o4750);
    const context = makeContext(directory);
    await runTool(editTool, { path: "owned.sh", old_str: "owned", new_str: "kept" }, context);
    const edited = await stat(path);
    await runTool(createTool, { path: "owned.sh", file_text: "x\n", overwrite: true }, context);
    const overwritten = await stat(path);
    const nobody = [idOf("-u", "nobody"), idOf("-g", "nobody"), 0o4750];
    expect([edited, overwritten].map((each) => [each.uid, each.gid, each.mode & 0o7777])).toEqual([
      nobody,
      nobody,
    ]);
    expect(await readFile(path, "utf8")).toBe("x\n");
    expect(await readdir(directory)).toEqual(["owned.sh"]);
  });

  it("writes a read-only file, as access(2) lets root, keeping its mode", async () => {
    const path = join(directory, "ro.txt");
    await writeFile(path, "ro\n", { mode: 0o444 });
    const result = await runTool(
      editTool,
      { path: "ro.txt", old_str: "ro", new_str: "root" },
      makeContext(directory),
    );
    expect([result.isError, await readFile(path, "utf8"), (await stat(path)).mode & 0o777]).toEqual(
      [false, "root\n", 0o444],
    );
  });

  it("gives a file with another hard link a copy of its own, as README says", async () => {
    const path = join(directory, "linked.txt");
    await writeFile(path, "old\n");
    await link(path, join(directory, "other-name.txt"));
    await runTool(
      editTool,
      { path: "linked.txt", old_str: "old", new_str: "new" },
      makeContext(directory),
    );
    expect([
      await readFile(path, "utf8"),
      await readFile(join(directory, "other-name.txt"), "utf8"),
      (await stat(path)).nlink,
    ]).toEqual(["new\n", "old\n", 1]);
  });
});
