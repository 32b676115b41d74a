/**
 * One-time work of the process that the first model turn would otherwise do on its way to the
 * user (issue 26, figures 3b and 4e; bench/notes/turn.md): JIT compilation the response's chunks
 * need. It starts when a model request has been handed to the operating system (`send` in
 * http-fetch.ts), never before: the request waits for none of it, and the process is otherwise
 * idle until the server answers. It runs in one piece, on the next `setImmediate`: an answer that
 * comes meanwhile waits for it, but its chunks would have paid it, and split one piece per
 * `setImmediate` the rest was pushed behind the whole reply's handling (measured in
 * bench/notes/turn.md). With a server that answers at once the work is moved, not added.
 *
 * Node's released-reader and released-writer errors ({@link prepareReleasedLockErrors}) are
 * queued only by the wires whose AI SDK model releases a lock of its own: on the OpenAI-compatible
 * wire a response's stages release none (src/llm/lock-keeping-stream.ts, `LockKeepingStream`), and
 * building them was about 3 % of a `-p` run's instructions.
 */

const queue: Array<() => void> = [];

/**
 * Queues `work` for the next time a model request has been sent. It runs once; a throw is
 * ignored.
 */
export function prepareAt(work: () => void): void {
  queue.push(work);
}

/** Whether any work waits for {@link runPreparations}. */
export function preparationsWaiting(): boolean {
  return queue.length > 0;
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

/** Whether {@link prepareReleasedLockErrors} queued its work already. */
let releasedLockErrorsQueued = false;

/**
 * Queues, once per process, the building of the errors Node 20 makes at the first `releaseLock` of
 * a reader and of a writer: stripping their stacks creates a `vm` context (2–4 ms here; later
 * releases take microseconds). For the wires whose AI SDK model releases a reader and pipes a
 * stream of its own while reading a response (`@ai-sdk/openai`'s first-chunk check and
 * `@ai-sdk/anthropic`'s each `tee` the stream and release their reader), so that the first
 * response does not pay it on its way to the user (bench/notes/targets.md, "Relay latency tails").
 */
export function prepareReleasedLockErrors(): void {
  if (!releasedLockErrorsQueued) {
    releasedLockErrorsQueued = true;
    prepareAt(releasedLockErrors);
  }
}

/**
 * Builds both errors with no stack frames: Node strips their stacks anyway, and writing the frames
 * made V8 find the line ends of every script on the stack, turnloop's bundle files of a few hundred
 * KB included (about 1 % of a `-p` run's instructions; bench/notes/start.md).
 */
function releasedLockErrors(): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    new ReadableStream().getReader().releaseLock();
    new WritableStream().getWriter().releaseLock();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
