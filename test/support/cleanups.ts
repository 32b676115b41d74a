/**
 * Cleanups a support module needs after every test or every test file (temporary folders, servers
 * it started). A module's own `afterEach` or `afterAll` is registered only by the first file that
 * imports it when test files share modules (`isolate: false`, vitest.config.ts), so support
 * modules hand their cleanups here instead, and test/support/each-file.ts (a setup file, run for
 * every file either way) registers the hooks that run them.
 */

type Cleanup = () => unknown;

const afterTest = new Set<Cleanup>();
const afterFile = new Set<Cleanup>();

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
