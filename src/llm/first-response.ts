/**
 * One-time work of the process that the first model response would otherwise do on its way to the
 * user (issue 26, figure 4e; bench/notes/turn.md): JIT compilation the first chunks need, and an
 * error object Node builds once. It starts when a response's headers have arrived
 * (`ModelAttempt`), one piece per event-loop turn after the turn's I/O: a streaming server answers
 * with its headers before the model's first token, so the work fills the wait for that token; a
 * part that arrives meanwhile waits for one piece at most (a few ms, once per process). With a
 * server that sends everything at once the work is only moved, not added: the parts would have
 * paid it.
 */
const preparations: Array<() => void> = [];
/** Whether {@link releasedReaderError} was queued: last of the first run, as the last delta needs it. */
let readerErrorQueued = false;

/** Queues `work` for the next response's headers. It runs once; a throw is ignored. */
export function prepareOnFirstResponse(work: () => void): void {
  preparations.push(work);
}

/**
 * Starts the work queued so far, in order, one piece per `setImmediate`; work queued meanwhile
 * waits for the next call. Cheap once the queue is empty.
 */
export function runPreparations(): void {
  if (!readerErrorQueued) {
    readerErrorQueued = true;
    preparations.push(releasedReaderError);
  }
  if (preparations.length === 0) {
    return;
  }
  const batch = preparations.splice(0);
  const runNext = () => {
    const work = batch.shift();
    try {
      work?.();
    } catch {
      // A preparation only saves time later; its failure changes nothing that follows.
    }
    if (batch.length > 0) {
      setImmediate(runNext);
    }
  };
  setImmediate(runNext);
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
