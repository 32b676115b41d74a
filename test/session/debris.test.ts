/**
 * What a kill while creating a session leaves in the file store (store.ts's `removeDebris`): a
 * folder with no event, a lock whose owner is gone and a lock file being replaced when the kill
 * came (`lock.<pid>.new`) is removed by the next listing once past its grace period; a folder
 * holding anything else stays.
 */

import { spawnSync } from "node:child_process";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileSessionStore } from "../../src/session/file-store.js";
import { sessionsRoot } from "../../src/session/paths.js";
import { makeTemporaryDirectory } from "./support.js";

const KILLED = "88888888-8888-4888-8888-888888888888";
const KEPT = "99999999-9999-4999-8999-999999999999";
const EMPTY_LOCK = "66666666-6666-4666-8666-666666666666";

/** A session folder with `files`, last changed a minute ago (past the grace period). */
async function oldFolder(home: string, sessionId: string, files: Record<string, string>) {
  const folder = join(sessionsRoot(home), sessionId);
  await mkdir(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(folder, name), text);
  }
  const minuteAgo = new Date(Date.now() - 60_000);
  await utimes(folder, minuteAgo, minuteAgo);
}

describe("the debris of a killed session creation", () => {
  it("a folder left with an empty log and a half-replaced lock of a dead process, or with only an empty lock, is removed; one with anything else stays", async () => {
    const home = await makeTemporaryDirectory();
    // The pid of a process that ran and ended.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    await oldFolder(home, KILLED, { "events.jsonl": "", [`lock.${dead}.new`]: `{"pid":${dead}}` });
    await oldFolder(home, KEPT, {
      "events.jsonl": "",
      [`lock.${dead}.new`]: `{"pid":${dead}}`,
      "notes.txt": "not debris",
    });
    // A kill while the lock was being written leaves it empty (the folder holding only the lock
    // of a dead process is file-store.test.ts's).
    await oldFolder(home, EMPTY_LOCK, { lock: "" });
    const lockAge = new Date(Date.now() - 60_000);
    await utimes(join(sessionsRoot(home), EMPTY_LOCK, "lock"), lockAge, lockAge);
    expect(await new FileSessionStore(home).list()).toEqual([]);
    expect((await readdir(sessionsRoot(home))).sort()).toEqual([KEPT]);
  });
});
