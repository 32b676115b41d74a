/**
 * Cleaning up after the chaos bench (bench/scale.mjs) however it ends: its PostgreSQL, fake
 * model and worker processes are registered here. On SIGINT, SIGTERM, an uncaught exception or
 * an unhandled rejection every registered cleanup runs (last registered first, each given 10 s;
 * further signals meanwhile are ignored) and the bench exits with 128 + the signal's number (1
 * after an exception); on any exit, registered child processes still running are sent SIGCONT
 * (a frozen one) and SIGKILL, so nothing outlives the bench.
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

/** @param {string} reason @param {number} exitCode */
async function stopOn(reason, exitCode) {
  if (stopping) {
    return;
  }
  stopping = true;
  process.stderr.write(`scale: ${reason}: stopping the workers, the fake model and PostgreSQL…\n`);
  killChildren();
  for (const cleanup of cleanups.reverse()) {
    await Promise.race([
      cleanup().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, CLEANUP_MS).unref()),
    ]);
  }
  process.exit(exitCode);
}

/**
 * Installs the SIGINT, SIGTERM and exit handlers. They stay installed while the clean-up runs: a
 * second signal (`timeout` and a shell both passing one on) must not end the bench half-way.
 */
export function installCleanup() {
  process.on("SIGINT", () => void stopOn("SIGINT", 128 + 2));
  process.on("SIGTERM", () => void stopOn("SIGTERM", 128 + 15));
  // vscode-jsonrpc's sendRequest rethrows a failed write (a socket the killed worker ended) from
  // an async Promise executor, where nothing can catch it: without these the bench would die
  // there and leave PostgreSQL and the fake model running.
  for (const event of ["uncaughtException", "unhandledRejection"]) {
    process.on(event, (error) => {
      const message = error instanceof Error ? error.message : String(error);
      void stopOn(`${event} (${message})`, 1);
    });
  }
  process.once("exit", killChildren);
}
