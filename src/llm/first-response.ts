/**
 * One-time work of the process that the first model response would otherwise do on its way to the
 * user (issue 26, figure 4e; bench/notes/targets.md, "turn lane … session 8"): JIT compilation
 * the chunks need, and an error object Node builds once. Two stages, each run once, one piece per
 * event-loop turn (`setImmediate`, after that turn's I/O):
 * - `headers`: when a response's headers have arrived (`ModelAttempt`), only work the first part
 *   needs anyway; a streaming server answers with its headers before the model's first token, so
 *   it fills that wait, and a first token that comes meanwhile waits for nothing it would not
 *   have done itself;
 * - `first part`: once the first part was read, work that only later parts (tool calls, the
 *   finish, the body's end) need, between the deltas rather than before the first.
 * With a server that sends everything at once the work is moved, not added: the parts would have
 * paid it.
 */
export type PreparationStage = "headers" | "first part";

const queues: Record<PreparationStage, Array<() => void>> = {
  headers: [],
  "first part": [releasedReaderError],
};

/** Queues `work` for the next time `stage` is reached. It runs once; a throw is ignored. */
export function prepareAt(stage: PreparationStage, work: () => void): void {
  queues[stage].push(work);
}

/**
 * Starts the work queued for `stage` so far, in order, one piece per `setImmediate`; work queued
 * meanwhile waits for the next time. Cheap once the queue is empty. The first piece runs `turns`
 * turns of the event loop later (1 or 2): with 2, what the caller's event queues for its next
 * turn goes first. `ModelAttempt` starts "first part" just before it hands on the first event;
 * when that is a text delta, the ACP face sends it on its next `setImmediate`
 * (src/acp/update-outbox.ts), which waited behind a piece of 2–4 ms (issue 26, figure 4e).
 */
export function runPreparations(stage: PreparationStage, turns: 1 | 2 = 1): void {
  const queue = queues[stage];
  if (queue.length === 0) {
    return;
  }
  const batch = queue.splice(0);
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
  setImmediate(turns === 1 ? runNext : () => setImmediate(runNext));
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
