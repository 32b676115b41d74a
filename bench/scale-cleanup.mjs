/**
 * Cleaning up after the chaos bench (bench/scale.mjs) however it ends: its PostgreSQL, fake
 * model and worker processes are registered here. On SIGINT or SIGTERM every registered cleanup
 * runs (last registered first, each given 10 s) and the bench exits with 128 + the signal's
 * number; on any exit, registered child processes still running are sent SIGCONT (a frozen one)
 * and SIGKILL, so nothing outlives the bench.
 */

/** @type {Array<() => Promise<void>>} */
const cleanups = [];
/** @type {Set<import("node:child_process").ChildProcess>} */
const children = new Set();
const CLEANUP_MS = 10_000;

/**
 * Registers `cleanup` for a signal; returns a function that unregisters it (call it once the
 * thing was cleaned up normally).
 * @param {() => Promise<void>} cleanup
 */
export function onSignalCleanup(cleanup) {
  cleanups.push(cleanup);
  return () => {
    const at = cleanups.indexOf(cleanup);
    if (at !== -1) {
      cleanups.splice(at, 1);
    }
  };
}

/** Kills `child` when the bench exits, if it still runs then. */
export function killOnExit(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
}

function killChildren() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    }
  }
}

let stopping = false;

/** @param {NodeJS.Signals} signal @param {number} number */
async function stopOn(signal, number) {
  if (stopping) {
    return;
  }
  stopping = true;
  process.stderr.write(`scale: ${signal}: stopping the workers, the fake model and PostgreSQL…\n`);
  killChildren();
  for (const cleanup of cleanups.reverse()) {
    await Promise.race([
      cleanup().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, CLEANUP_MS).unref()),
    ]);
  }
  process.exit(128 + number);
}

/** Installs the SIGINT, SIGTERM and exit handlers (once). */
export function installCleanup() {
  process.once("SIGINT", () => void stopOn("SIGINT", 2));
  process.once("SIGTERM", () => void stopOn("SIGTERM", 15));
  process.once("exit", killChildren);
}
