import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The files in the order of their names, whatever their size or the durations vitest cached. */
class NameOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((left, right) => left.moduleId.localeCompare(right.moduleId));
  }
}

/**
 * The run of test/support-tests/shared-worker.test.ts: this folder's `*.file.ts` in one worker, in
 * the order of their names, sharing their modules as vitest.config.ts's projects do
 * (`isolate: false`), with the suite's setup file.
 */
export default defineConfig({
  root: fileURLToPath(new URL("../../..", import.meta.url)),
  // Not the suite's cache (node_modules/.vite): this run's durations would reorder the suite's files.
  cacheDir: join(tmpdir(), "turnloop-shared-worker-vite"),
  test: {
    include: ["test/support-tests/shared-worker/*.file.ts"],
    setupFiles: ["test/support/each-file.ts"],
    isolate: false,
    maxWorkers: 1,
    sequence: { sequencer: NameOrder },
  },
});
