import { execFileSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  readdir,
  rm,
  stat,
  statfs,
  truncate,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** Whether this process may mount a tmpfs (root: CI runs as root, .ci/run). */
export const CAN_MOUNT = process.getuid?.() === 0;

/**
 * A full-disk group's title, which says why its tests are skipped where they cannot run (not
 * root: no tmpfs can be mounted; CI runs as root, so they run there).
 */
export function needingMount(title: string): string {
  return CAN_MOUNT ? title : `${title} (skipped: needs root to mount a tmpfs; CI runs as root)`;
}

/** A small file system that fills up on demand, with a `home` folder on it. */
export interface FullDisk {
  /** An empty folder on the small file system. */
  home: string;
  /** Writes one filler file until a write fails with ENOSPC: the file system is full. */
  fill: () => Promise<void>;
  /**
   * Fills the file system, then gives back exactly `blocks` of its blocks (a tmpfs block is a
   * page, 4 KiB here: each file of less than that takes one, whatever its size).
   * @throws when the free blocks are not then exactly `blocks`.
   */
  leave: (blocks: number) => Promise<void>;
  /** Removes the filler file, leaving the room it took. */
  free: () => Promise<void>;
  /** Unmounts the tmpfs and removes its mount point. */
  close: () => Promise<void>;
  /**
   * Makes the disk as {@link fullDisk} made it (everything on it removed, an empty `home`, full
   * unless `full` was false) without mounting again.
   * @throws when something on it cannot be removed (e.g. made immutable).
   */
  reset: () => Promise<void>;
}

/**
 * Mounts a `sizeKiB` tmpfs in a new temporary folder and makes `home` on it, full at once unless
 * `full` is false. Needs root ({@link CAN_MOUNT}).
 */
export async function fullDisk(sizeKiB = 1024, full = true): Promise<FullDisk> {
  const mountPoint = await mkdtemp(join(tmpdir(), "turnloop-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k`, "tmpfs", mountPoint]);
  const home = join(mountPoint, "home");
  await mkdir(home);
  const filler = join(mountPoint, "filler");
  const disk: FullDisk = {
    home,
    fill: () => writeFile(filler, Buffer.alloc(sizeKiB * 1024 * 2)).catch(() => undefined),
    leave: async (blocks) => {
      await disk.fill();
      const { bsize } = await statfs(mountPoint);
      await truncate(filler, (await stat(filler)).size - blocks * bsize);
      const { bavail } = await statfs(mountPoint);
      if (bavail !== blocks) {
        throw new Error(`${mountPoint}: ${bavail} blocks free, not ${blocks}`);
      }
    },
    free: () => unlink(filler),
    close: async () => {
      execFileSync("umount", [mountPoint]);
      await rm(mountPoint, { recursive: true, force: true });
    },
    reset: async () => {
      for (const entry of await readdir(mountPoint)) {
        await rm(join(mountPoint, entry), { recursive: true, force: true });
      }
      await mkdir(home);
      if (full) {
        await disk.fill();
      }
    },
  };
  if (full) {
    await disk.fill();
  }
  return disk;
}

/** A {@link FullDisk} of the current test, with the environment of a run whose home is on it. */
export interface TestDisk extends FullDisk {
  /** `HOME` and `TURNLOOP_HOME`: the disk's home; and the variables {@link useFullDisk} was given. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * A {@link fullDisk} (`sizeKiB`, `full`) for each test of the calling `describe`: mounted once in
 * `beforeAll` and made new before each test ({@link FullDisk.reset}; mounted again only when that
 * fails), unmounted in `afterAll`; its fields are usable inside tests. `extra`: variables added to
 * its {@link TestDisk.env}. Once per `describe`, not per test: a mount made or removed below `/`
 * while bwrap binds `/` recursively fails the sandboxed commands other test files run then
 * (`Can't bind mount /oldroot/ …: No such file or directory`).
 */
export function useFullDisk(sizeKiB = 1024, full = true, extra: NodeJS.ProcessEnv = {}): TestDisk {
  let disk: FullDisk | undefined;
  beforeAll(async () => {
    disk = await fullDisk(sizeKiB, full);
  });
  let first = true;
  beforeEach(async () => {
    if (first || disk === undefined) {
      first = false;
      disk ??= await fullDisk(sizeKiB, full);
      return;
    }
    const mounted = disk;
    await mounted.reset().catch(async () => {
      await mounted.close().catch(() => undefined);
      disk = await fullDisk(sizeKiB, full);
    });
  });
  afterAll(async () => {
    await disk?.close();
    disk = undefined;
  });
  const current = (): FullDisk => {
    if (disk === undefined) {
      throw new Error("useFullDisk: the disk is mounted in beforeEach; use it inside tests");
    }
    return disk;
  };
  return {
    get home() {
      return current().home;
    },
    get env() {
      const { home } = current();
      return { HOME: home, TURNLOOP_HOME: home, ...extra };
    },
    fill: () => current().fill(),
    leave: (blocks) => current().leave(blocks),
    free: () => current().free(),
    close: () => current().close(),
    reset: () => current().reset(),
  };
}
