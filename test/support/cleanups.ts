/**
 * Cleanups a support module needs after every test or every test file (temporary folders, servers
 * it started), and the resets of what a file may change for the rest of its worker (a fixture
 * option set with `test.override`). A module's own `afterEach` or `afterAll` is registered only by
 * the first file that imports it when test files share modules (`isolate: false`,
 * vitest.config.ts), so support modules hand their cleanups and resets here instead, and
 * test/support/each-file.ts (a setup file, run for every file either way) runs them.
 */

type Cleanup = () => unknown;

const afterTest = new Set<Cleanup>();
const afterFile = new Set<Cleanup>();
const beforeFile = new Set<() => void>();

/** Runs `cleanup` after each test of every file that runs from now on. */
export function afterEveryTest(cleanup: Cleanup): void {
  afterTest.add(cleanup);
}

/** Runs `cleanup` after the last test of every file that runs from now on. */
export function afterEveryFile(cleanup: Cleanup): void {
  afterFile.add(cleanup);
}

/** The cleanups of {@link afterEveryTest}, all at once. */
export async function cleanUpAfterTest(): Promise<void> {
  await Promise.all([...afterTest].map((cleanup) => cleanup()));
}

/** The cleanups of {@link afterEveryFile}, all at once. */
export async function cleanUpAfterFile(): Promise<void> {
  await Promise.all([...afterFile].map((cleanup) => cleanup()));
}

/**
 * Runs `reset` before every file that runs from now on, while the file is collected (before its
 * own top-level code): `test.override` there sets the file's defaults.
 */
export function resetBeforeEveryFile(reset: () => void): void {
  beforeFile.add(reset);
}

/** The resets of {@link resetBeforeEveryFile}, in the order they were handed in. */
export function resetBeforeFile(): void {
  for (const reset of beforeFile) {
    reset();
  }
}
