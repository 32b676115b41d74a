/**
 * The chaos bench's workers (bench/scale.mjs): server processes (`--headless --port 0`) on one
 * store, driven by our SDK (dist/sdk): each session is created on a worker, runs one prompt of
 * several tool turns, and is disconnected (its lease released). A worker that is killed or frozen
 * leaves its sessions in flight to the others, which resume (claim) them and prompt again.
 */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { binCommand } from "./bin.mjs";
import { killOnExit } from "./scale-cleanup.mjs";

/**
 * @typedef {object} Worker
 * @property {number} index
 * @property {import("node:child_process").ChildProcess} child
 * @property {any} client a connected TurnloopClient
 * @property {boolean} usable false once killed or frozen
 * @property {string} stderr what it wrote to stderr
 */

/**
 * Starts `count` server processes.
 * @param {{cliPath: string, dist: string, cwd: string, env: NodeJS.ProcessEnv, count: number}} options
 * @returns {Promise<Worker[]>}
 */
export async function startWorkers({ cliPath, dist, cwd, env, count }) {
  const { TurnloopClient } = await import(join(dist, "sdk", "index.js"));
  /** @type {import("node:child_process").ChildProcess[]} */
  const children = [];
  const started = Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const { command, args } = binCommand(cliPath, ["--headless", "--port", "0"]);
      const child = spawn(command, args, {
        cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      killOnExit(child);
      const worker = { index, child, client: undefined, usable: true, stderr: "" };
      child.stderr.setEncoding("utf8").on("data", (text) => {
        worker.stderr += text;
      });
      const port = await new Promise((resolve, reject) => {
        let output = "";
        child.stdout.setEncoding("utf8").on("data", (text) => {
          output += text;
          const match = /listening on port (\d+)/i.exec(output);
          if (match !== null) {
            resolve(Number(match[1]));
          }
        });
        child.once("exit", (code) =>
          reject(new Error(`worker ${index} exited (${code}): ${worker.stderr}`)),
        );
      });
      worker.client = new TurnloopClient({ port });
      await worker.client.start();
      return worker;
    }),
  );
  // One worker that does not start stops the others.
  return started.catch((error) => {
    for (const child of children) {
      child.kill("SIGKILL");
    }
    throw error;
  });
}

/** Stops every worker (SIGKILL for one that does not stop). */
export async function stopWorkers(workers) {
  await Promise.all(
    workers.map(async (worker) => {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill("SIGCONT");
        await Promise.race([
          worker.client.stop().catch(() => undefined),
          new Promise((r) => setTimeout(r, 5000)),
        ]);
        worker.child.kill("SIGKILL");
      }
    }),
  );
}

const approveAll = () => ({ kind: "approve-once" });
/** A progress line on stderr with SCALE_DEBUG set. */
const debug = (line) =>
  process.env.SCALE_DEBUG === undefined ? undefined : process.stderr.write(`scale: ${line}\n`);
/** How long one prompt may take before the bench gives up on it (a frozen worker's prompts). */
const PROMPT_TIMEOUT_MS = 60_000;
/** The run gives up when no session finished for this long. */
const STALL_MS = 90_000;

/**
 * Runs `sessions` sessions over the usable workers, `lanes` at a time per worker; `chaos` is
 * called after each finished session with the number finished, and may kill or freeze workers
 * (marking them unusable): their sessions in flight are resumed on another worker, and the
 * sessions whose creation they did not answer are created on another. When no session finishes
 * for `STALL_MS`, the run ends and `stalled` says what each unfinished one was waiting on.
 * @returns {Promise<{ids: string[], promptMs: number[], finished: Set<string>, takeovers: Array<{sessionId: string, from: number, at: number, waited: boolean}>, failures: unknown[], lostErrors: Array<{worker: number, message: string}>, stalled: Array<{sessionId?: string, index?: number, worker: number, waitingOn: string}>, wallMs: number}>}
 */
export async function driveSessions(workers, { sessions, lanes, onCreated, chaos, isFree }) {
  const ids = [];
  const promptMs = [];
  const finished = new Set();
  const takeovers = [];
  const failures = [];
  /** The errors of the lanes of killed or frozen workers, by worker. */
  const lostErrors = [];
  /** Sessions whose prompt runs, by the worker running it. */
  const inFlight = new Map();
  const adopted = new Set();
  /** Session numbers whose creation a lost worker did not finish. */
  const retry = [];
  /** What each lane and adoption is waiting on, for the stall report. */
  const waits = new Set();
  let next = 0;
  const started = performance.now();
  const live = () => workers.filter((worker) => worker.usable);
  const take = () => (retry.length > 0 ? retry.shift() : next < sessions ? next++ : undefined);

  async function prompt(worker, session, text, wait) {
    const begun = performance.now();
    wait.waitingOn = `session.idle of the prompt on worker ${worker.index}`;
    const reply = await session.sendAndWait({ prompt: text }, PROMPT_TIMEOUT_MS).catch((error) => {
      throw new Error(`session ${session.sessionId} on worker ${worker.index}: ${error.message}`);
    });
    if (!worker.usable) {
      // A frozen worker, woken up, still holds a session it created while frozen: let it go.
      await session.disconnect().catch(() => undefined);
      throw new Error("worker lost during the prompt");
    }
    if (reply === undefined) {
      throw new Error("no answer");
    }
    promptMs.push(performance.now() - begun);
    wait.waitingOn = `session.disconnect on worker ${worker.index}`;
    await session.disconnect();
  }

  async function lane(worker) {
    // Usable is checked before a session number is taken: one taken by a lost worker's lane
    // after its last session would never run.
    for (let index = worker.usable ? take() : undefined; index !== undefined; ) {
      const wait = { index, worker: worker.index, waitingOn: "session.create" };
      waits.add(wait);
      try {
        const session = await worker.client.createSession({ onPermissionRequest: approveAll });
        wait.sessionId = session.sessionId;
        ids.push(session.sessionId);
        inFlight.set(session.sessionId, worker);
        wait.waitingOn = "the bench's subscription";
        await onCreated(session.sessionId);
        await prompt(worker, session, `session ${index}: read the notes`, wait);
        inFlight.delete(session.sessionId);
        finished.add(session.sessionId);
        await chaos(finished.size);
      } catch (error) {
        debug(`lane of worker ${worker.index}: ${String(error).slice(0, 160)}`);
        if (worker.usable) {
          throw error;
        }
        lostErrors.push({ worker: worker.index, message: String(error) });
        if (wait.sessionId === undefined) {
          retry.push(index);
        }
        return;
      } finally {
        waits.delete(wait);
      }
      index = worker.usable ? take() : undefined;
    }
    debug(`a lane of worker ${worker.index} ended`);
  }

  /**
   * Resumes an orphan on a live worker once nobody holds it (a resume while a live or frozen
   * worker holds it would follow it there), then prompts it to the end.
   */
  async function adopt(sessionId, from) {
    debug(`adopting ${sessionId}`);
    const wait = { sessionId, worker: from.index, waitingOn: "its lease to be free" };
    waits.add(wait);
    try {
      // Whether the lost worker still held it: then the takeover had to wait for its lease.
      let waited = false;
      while (!(await isFree(sessionId))) {
        waited = true;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (let attempt = 0; ; attempt++) {
        const workers = live();
        const worker = workers[attempt % workers.length];
        wait.worker = worker.index;
        wait.waitingOn = `session.resume on worker ${worker.index}`;
        try {
          const session = await worker.client.resumeSession(sessionId, {
            onPermissionRequest: approveAll,
          });
          takeovers.push({ sessionId, from: from.index, at: performance.now(), waited });
          debug(`resumed ${sessionId} on worker ${worker.index}`);
          await prompt(worker, session, "continue: read the notes", wait);
          inFlight.delete(sessionId);
          finished.add(sessionId);
          return;
        } catch (error) {
          debug(`resume ${sessionId}: ${String(error).slice(0, 200)}`);
          if (!/another process|another worker|lease/i.test(String(error))) {
            throw error;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    } finally {
      waits.delete(wait);
    }
  }

  const running = new Set();
  const watch = (promise) => {
    const settled = promise
      .catch((error) => failures.push(error))
      .finally(() => running.delete(settled));
    running.add(settled);
  };
  for (const worker of workers) {
    for (let index = 0; index < lanes; index++) {
      watch(lane(worker));
    }
  }
  // A run that stops making progress ends here, its sessions reported unfinished (the checks).
  let progress = { finished: 0, at: performance.now() };
  let stalled = [];
  // The orphans and the creations to retry are looked at before the loop may end: the last lane
  // to end can be a lost worker's, leaving its session in flight with nothing else running.
  for (;;) {
    if (finished.size !== progress.finished) {
      progress = { finished: finished.size, at: performance.now() };
    } else if (performance.now() - progress.at > STALL_MS) {
      failures.push(new Error(`no session finished for ${STALL_MS / 1000} s: gave up`));
      stalled = [...waits]
        .filter((wait) => wait.sessionId === undefined || !finished.has(wait.sessionId))
        .map((wait) => ({ ...wait }));
      break;
    }
    for (const [sessionId, worker] of inFlight) {
      if (!worker.usable && !adopted.has(sessionId)) {
        adopted.add(sessionId);
        watch(adopt(sessionId, worker));
      }
    }
    // Creations a lost worker did not answer go to a new lane when every lane may have ended.
    const [worker] = live();
    if (retry.length > 0 && worker !== undefined) {
      watch(lane(worker));
    }
    if (running.size === 0) {
      break;
    }
    await Promise.race([...running, new Promise((resolve) => setTimeout(resolve, 200))]);
  }
  return {
    ids,
    promptMs,
    finished,
    takeovers,
    failures,
    lostErrors,
    stalled,
    wallMs: performance.now() - started,
  };
}
