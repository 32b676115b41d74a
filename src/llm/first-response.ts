/**
 * One-time work of the process that the first model response would otherwise do on its way to the
 * user (issue 26, figures 3b and 4e; bench/notes/turn.md): JIT compilation the first chunks need,
 * and an error object Node builds once. It runs when a response's headers have arrived, before its
 * first part is read (`ModelAttempt`): a streaming server answers with its headers before the
 * model's first token, so the work fills the wait for that token instead of delaying a delta.
 * With a server that sends everything at once the work is only moved, not added: the first parts
 * would have paid it.
 */
const preparations: Array<() => void> = [releasedReaderError];

/** Queues `work` for the next response's headers. It runs once; a throw is ignored. */
export function prepareBeforeFirstParts(work: () => void): void {
  preparations.push(work);
}

/** Runs the queued work, in order, and forgets it. Cheap once the queue is empty. */
export function runPreparations(): void {
  if (preparations.length === 0) {
    return;
  }
  for (const work of preparations.splice(0)) {
    try {
      work();
    } catch {
      // A preparation only saves time later; its failure changes nothing that follows.
    }
  }
}

/**
 * Node 20 builds the error a released reader's `closed` promise rejects with on the first
 * `releaseLock` of the process, and stripping its stack creates a `vm` context (2–4 ms here; later
 * releases take microseconds). The AI SDK releases the body's reader after the body's last piece,
 * so the first response's last delta paid it (bench/notes/targets.md, "Relay latency tails").
 */
function releasedReaderError(): void {
  new ReadableStream().getReader().releaseLock();
}
