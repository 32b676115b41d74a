/**
 * Noticing appends another process makes to a session's `events.jsonl` (the file store's
 * cross-process `subscribe`): `fs.watch` on the log wakes its followers at once, and a slow poll
 * wakes them anyway, as a safety net for file systems where change notices are lost or not
 * delivered (network mounts). A wake-up costs one `fstat` of the follower's open log, and a read
 * only of the bytes past its offset, so a spurious one reads nothing (file-store-reader.ts).
 *
 * The poll is one timer for every watched log: each tick wakes at most {@link LOG_POLL_BATCH}
 * logs, in turn, so up to that many logs are each polled every {@link LOG_POLL_MS} and more are
 * polled less often, at a cost that does not grow with the number of sessions a server follows
 * (issue 26: 1,000 idle sessions in one server were 1,000 reads a second).
 */

import { type FSWatcher, watch } from "node:fs";

/** How often the poll ticks, in milliseconds. */
export const LOG_POLL_MS = 1_000;
/** How many logs one tick of the poll wakes at most. */
export const LOG_POLL_BATCH = 100;

interface Watch {
  followers: number;
  watcher: FSWatcher | undefined;
}

/** The logs watched by this process, by path; each watched once however many follow it. */
export class LogWatches {
  readonly #watches = new Map<string, Watch>();
  readonly #wake: (path: string) => void;
  #poll: NodeJS.Timeout | undefined;
  /** Where the next tick of the poll starts, in the order of {@link #watches}. */
  #pollCursor = 0;

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
      entry = { followers: 0, watcher: this.#startWatcher(path) };
      this.#watches.set(path, entry);
      this.#startPolling();
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
        watched.watcher?.close();
        if (this.#watches.size === 0) {
          clearInterval(this.#poll);
          this.#poll = undefined;
        }
      }
    };
  }

  #startPolling(): void {
    if (this.#poll !== undefined) {
      return;
    }
    this.#poll = setInterval(() => this.#pollTick(), LOG_POLL_MS);
    this.#poll.unref();
  }

  #pollTick(): void {
    const paths = [...this.#watches.keys()];
    const count = Math.min(paths.length, LOG_POLL_BATCH);
    for (let index = 0; index < count; index++) {
      const path = paths[(this.#pollCursor + index) % paths.length];
      if (path !== undefined) {
        this.#wake(path);
      }
    }
    this.#pollCursor = paths.length === 0 ? 0 : (this.#pollCursor + count) % paths.length;
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
