/**
 * One-time work of the process that the first model turn would otherwise do on its way to the
 * user (issue 26, figures 3b and 4e; bench/notes/turn.md): JIT compilation the response's chunks
 * need, and an error object Node builds once. It starts when a model request has been handed to
 * the operating system (`send` in http-fetch.ts), never before: the request waits for none of it,
 * and the process is otherwise idle until the server answers. It runs in one piece, on the next
 * `setImmediate`: an answer that comes meanwhile waits for it, but its chunks would have paid it,
 * and split one piece per `setImmediate` the rest was pushed behind the whole reply's handling
 * (measured in bench/notes/turn.md). With a server that answers at once the work is moved, not
 * added.
 */

const queue: Array<() => void> = [];
/** Whether {@link releasedReaderError} ran (after the queued work: the response's end needs it). */
let readerErrorBuilt = false;

/**
 * Queues `work` for the next time a model request has been sent. It runs once; a throw is
 * ignored.
 */
export function prepareAt(work: () => void): void {
  queue.push(work);
}

/** Whether any work waits for {@link runPreparations}. */
export function preparationsWaiting(): boolean {
  return queue.length > 0 || !readerErrorBuilt;
}

/**
 * Runs the work queued so far, in order, on the next `setImmediate`; work queued meanwhile waits
 * for the next time. Cheap once nothing waits.
 */
export function runPreparations(): void {
  if (!preparationsWaiting()) {
    return;
  }
  const batch = queue.splice(0);
  if (!readerErrorBuilt) {
    readerErrorBuilt = true;
    batch.push(releasedReaderError);
  }
  setImmediate(() => {
    for (const work of batch) {
      try {
        work();
      } catch {
        // A preparation only saves time later; its failure changes nothing that follows.
      }
    }
  });
}

/**
 * Node 20 builds the error a released reader's `closed` promise rejects with on the first
 * `releaseLock` of the process, and stripping its stack creates a `vm` context (2–4 ms here; later
 * releases take microseconds). The AI SDK releases the body's reader after the body's last piece,
 * so the first response's last delta paid it (bench/notes/targets.md, "Relay latency tails"). A
 * piped stream's end builds the same for a released writer (`Writer has been released`), so it is
 * built here too. Node keeps each error for the process with its stack stripped, so they are built
 * with no stack frames: writing the frames made V8 find the line ends of every script on the
 * stack, turnloop's bundle files of a few hundred KB included (about 1 % of a `-p` run's
 * instructions; bench/notes/start.md).
 */
function releasedReaderError(): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    new ReadableStream().getReader().releaseLock();
    new WritableStream().getWriter().releaseLock();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
