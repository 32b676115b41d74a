import fs, { fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { SessionLock } from "../../src/session/session-lock.js";
import { emptyScan, readMetadata, writeMetadata } from "../../src/session/session-metadata.js";
import { createFile, writeAndClose, writeAndCloseWithInode } from "../../src/session/small-file.js";
import { threadPoolRequests } from "../support/thread-pool.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-small-file-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("small files of the file store", () => {
  test("created through the thread pool with their mode, written and closed here; the inode is the file's", async () => {
    const path = join(directory, "lock");
    const fd = await createFile(path, "wx", 0o600);
    const inode = writeAndCloseWithInode(fd, "é\n");
    expect(readFileSync(path, "utf8")).toBe("é\n");
    expect(statSync(path).ino).toBe(inode);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: "EBADF" }));
    await expect(createFile(path, "wx", 0o600)).rejects.toMatchObject({ code: "EEXIST" });
    writeAndClose(await createFile(path, "w", 0o600), "shorter");
    expect(readFileSync(path, "utf8")).toBe("shorter");
  });

  test("a failed write closes the file and says why", async () => {
    const path = join(directory, "read-only");
    await writeFile(path, "");
    const fd = openSync(path, "r");
    expect(() => writeAndClose(fd, "text")).toThrow(expect.objectContaining({ code: "EBADF" }));
    expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: "EBADF" }));
    const again = openSync(path, "r");
    expect(() => writeAndCloseWithInode(again, "text")).toThrow(
      expect.objectContaining({ code: "EBADF" }),
    );
    expect(() => fstatSync(again)).toThrow(expect.objectContaining({ code: "EBADF" }));
  });

  test("the listing metadata is replaced with two thread-pool requests, its create and its rename (issue 26 7d)", async () => {
    const scan = { ...emptyScan(), size: 10, eventCount: 1 };
    const requests = await threadPoolRequests(() => writeMetadata(directory, scan));
    expect(requests).toBe(2);
    expect(readMetadata(directory)).toEqual(scan);
    expect(statSync(join(directory, "metadata.json")).mode & 0o777).toBe(0o600);
    expect(await readdir(directory)).toEqual(["metadata.json"]);
  });

  test("the listing metadata and a new lock are written without an fstat: only the breaker's check asks a file's inode (issue 26 7d)", async () => {
    const scan = { ...emptyScan(), size: 10, eventCount: 1 };
    const fstats = await fstatCalls(async () => {
      await writeMetadata(directory, scan);
      const lock = await SessionLock.acquire(directory, "s1");
      await lock.release();
    });
    expect(fstats).toBe(0);
    expect(readMetadata(directory)).toEqual(scan);
    expect(await readdir(directory)).toEqual(["metadata.json"]);
  });
});

/** How many times Node's `fs.fstatSync` was called while `run` ran (counted on Node's module). */
async function fstatCalls(run: () => Promise<void>): Promise<number> {
  let calls = 0;
  const fstat = fs.fstatSync;
  fs.fstatSync = ((...args: Parameters<typeof fs.fstatSync>) => {
    calls += 1;
    return fstat(...args);
  }) as typeof fs.fstatSync;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    fs.fstatSync = fstat;
    syncBuiltinESMExports();
  }
  return calls;
}
