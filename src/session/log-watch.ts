/**
 * Noticing appends another process makes to a session's `events.jsonl` (the file store's
 * cross-process `subscribe`): `fs.watch` on the log wakes its followers at once, and a slow poll
 * wakes them anyway, as a safety net for file systems where change notices are lost or not
 * delivered (network mounts). A wake-up costs one `fstat` of the follower's open log, and a read only
 * of the bytes past its offset, so a spurious one reads nothing (file-store-reader.ts).
 */

import { type FSWatcher, watch } from "node:fs";

/** How often the followers of a watched log read it without a change notice, in milliseconds. */
export const LOG_POLL_MS = 1_000;

interface Watch {
  followers: number;
  watcher: FSWatcher | undefined;
  poll: NodeJS.Timeout;
}

/** The logs watched by this process, by path; each watched once however many follow it. */
export class LogWatches {
  readonly #watches = new Map<string, Watch>();
  readonly #wake: (path: string) => void;

  /** @param wake called with a log's path when it may have grown. */
  constructor(wake: (path: string) => void) {
    this.#wake = wake;
  }

  /**
   * Starts watching `path` for one more follower. Never throws: a log that cannot be watched is
   * polled only.
   * @returns the function that stops watching for that follower (idempotent).
   */
  watch(path: string): () => void {
    let entry = this.#watches.get(path);
    if (entry === undefined) {
      const poll = setInterval(() => this.#wake(path), LOG_POLL_MS);
      poll.unref();
      entry = { followers: 0, watcher: this.#startWatcher(path), poll };
      this.#watches.set(path, entry);
    }
    entry.followers += 1;
    const watched = entry;
    let stopped = false;
    return () => {
      if (stopped) {
        return;
      }
      stopped = true;
      watched.followers -= 1;
      if (watched.followers === 0 && this.#watches.get(path) === watched) {
        this.#watches.delete(path);
        clearInterval(watched.poll);
        watched.watcher?.close();
      }
    };
  }

  #startWatcher(path: string): FSWatcher | undefined {
    try {
      const watcher = watch(path, { persistent: false }, () => this.#wake(path));
      // A log deleted or moved away: the poll carries on (and ends the following on ENOENT).
      watcher.on("error", () => watcher.close());
      return watcher;
    } catch {
      return undefined;
    }
  }
}
