/**
 * Small files the file store makes whole (a session's lock, its `lock.break`, its listing
 * metadata): created through Node's thread pool, written and closed on the calling thread.
 *
 * Why split so: on ext4 a create (a new directory entry among many recently deleted ones) takes
 * 30–370 µs in the kernel, which would stall the event loop if made synchronously, so the create
 * stays asynchronous. Writing a few hundred bytes into the new file and closing it take a few
 * microseconds each in the kernel, less than the main thread's own part of one thread-pool round
 * trip (the request, the wake-up, the callback and its promise: 50–80 µs measured), and a
 * `FileHandle` (fs/promises) adds an object with a finaliser per file. A server letting 1,000
 * sessions' leases go and taking them back makes several of these files a prompt (issue 26
 * figure 7d, bench/notes/perf.md).
 */

import { closeSync, fstatSync, open, writeSync } from "node:fs";

/**
 * Opens `path` with `flags` (`"wx"`: create, failing with `EEXIST` when it exists; `"w"`: create
 * or truncate; or `fs.constants` bits) and `mode` for a new file, through the thread pool.
 * @returns its file descriptor, to be given to {@link writeAndClose} (or closed with `closeSync`).
 * @throws the open's error (`EEXIST`, `ENOENT`, …).
 */
export function createFile(
  path: string,
  flags: "w" | "wx" | number,
  mode: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    open(path, flags, mode, (error, fd) => {
      if (error === null) {
        resolve(fd);
      } else {
        reject(error);
      }
    });
  });
}

/**
 * Writes all of `text` (UTF-8) into the file `fd` at its current position and closes it, both
 * synchronously; the file is closed whatever happens.
 * @throws the write's error (e.g. `ENOSPC`; the file then holds part of `text` at most) or the
 * close's.
 */
export function writeAndClose(fd: number, text: string): void {
  closeAfter(fd, () => writeAll(fd, text));
}

/**
 * {@link writeAndClose}, and the file's inode number (its identity, to check a later `stat` of its
 * path against: lock-file.ts's breaker), read before the close: one `fstat` more, made only where
 * that check needs it (a lock's or the listing metadata's file has no use for it).
 * @throws as {@link writeAndClose}, or the `fstat`'s error.
 */
export function writeAndCloseWithInode(fd: number, text: string): number {
  return closeAfter(fd, () => {
    writeAll(fd, text);
    return fstatSync(fd).ino;
  });
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let offset = 0; offset < bytes.length; ) {
    offset += writeSync(fd, bytes, offset, bytes.length - offset);
  }
}

/** `work`'s answer, `fd` closed after it whatever happens (a close's error thrown after success). */
function closeAfter<T>(fd: number, work: () => T): T {
  let answer: T;
  try {
    answer = work();
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
  closeSync(fd);
  return answer;
}

/** Closes `fd`, ignoring errors (a file given up after a failure). */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing more can be done with it.
  }
}
