import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import {
  type ProjectFileRules,
  readProjectFile,
  readProjectFileInBackground,
} from "../../src/tools/project-file.js";

/*
 * tools/project-file.ts reads a repository's files on the calling thread (`readProjectFile`) and,
 * for a large bound, through the thread pool (`readProjectFileInBackground`): the two must find
 * the same thing and refuse in the same words, whatever lies at the path.
 */

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "turnloop-project-file-"));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

test("the thread pool's reader finds and refuses what the calling thread's does, in its words", async () => {
  const project = join(folder, "project");
  const outside = join(folder, "outside.txt");
  await mkdir(join(project, "inner"), { recursive: true });
  await writeFile(outside, "secret\n");
  await writeFile(join(project, "small.txt"), "one\ntwo\n");
  await writeFile(join(project, "long.txt"), "x".repeat(40));
  await symlink(outside, join(project, "out-link"));
  await symlink(join(project, "nothing"), join(project, "dangling"));
  await writeFile(join(project, "file"), "");
  execFileSync("mkfifo", [join(project, "pipe")]);
  const rules: ProjectFileRules = {
    maxBytes: 32,
    overLimit: "refuse",
    project: { folder: project },
  };
  const cut: ProjectFileRules = { maxBytes: 5, overLimit: "cut", limitName: "five bytes" };
  const cases: Array<[string, ProjectFileRules]> = [
    ...[
      "small.txt",
      "long.txt",
      "out-link",
      "dangling",
      "pipe",
      "inner",
      "missing",
      "file/under",
    ].map((name): [string, ProjectFileRules] => [join(project, name), rules]),
    [join(project, "long.txt"), cut],
  ];
  const found = await Promise.all(
    cases.map(async ([path, given]) => [
      readProjectFile(path, given),
      await readProjectFileInBackground(path, given),
    ]),
  );
  for (const [onThread, inBackground] of found) {
    expect(inBackground).toEqual(onThread);
  }
  expect(
    found.map(([onThread]) => (onThread?.kind === "refused" ? onThread.reason : onThread?.kind)),
  ).toEqual([
    "read",
    "is 40 bytes, more than the 32-byte limit",
    `leads to ${outside}, outside the project folder ${project}; a project's file must lie in its project (a symbolic link out of it is not followed)`,
    "missing",
    "is not a regular file (a FIFO); only a regular file is read",
    "is not a regular file (a folder); only a regular file is read",
    "missing",
    `cannot be read: ENOTDIR: not a directory, lstat '${join(project, "file/under")}'`,
    "read",
  ]);
});
