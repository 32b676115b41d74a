import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { afterEach } from "vitest";

/**
 * Lets every process blocked on the FIFO at `path` go on: opened for reading and writing without
 * blocking, then closed, so that a reader or writer waiting for the other end ends (the old code
 * of a test about FIFOs then fails instead of hanging). A FIFO gone with its folder, or no FIFO,
 * is left alone.
 */
export function releaseFifo(path: string): void {
  try {
    closeSync(openSync(path, constants.O_RDWR | constants.O_NONBLOCK));
  } catch {
    // Gone with its folder: nothing waits on it.
  }
}

/**
 * The FIFO maker of a test file: `mkfifo` at a path, and every FIFO made is released
 * ({@link releaseFifo}) after each test. Call once at the file's top level (it adds an `afterEach`).
 */
export function fifoMaker(): (path: string) => void {
  const fifos: string[] = [];
  afterEach(() => {
    for (const fifo of fifos.splice(0)) {
      releaseFifo(fifo);
    }
  });
  return (path) => {
    execFileSync("mkfifo", [path]);
    fifos.push(path);
  };
}
