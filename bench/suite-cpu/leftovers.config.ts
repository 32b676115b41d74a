/**
 * The suite's own configuration (vitest.config.ts) with bench/suite-cpu/leftovers.ts set up first
 * in every file, so its `afterAll` runs after the file's own and the support modules' cleanups:
 * `SUITE_LEFTOVERS_LOG=/tmp/x.jsonl npx vitest run --config bench/suite-cpu/leftovers.config.ts
 * --project processes <files>` logs what each file left running in its worker.
 */

import { defineConfig } from "vitest/config";
import suite from "../../vitest.config.js";

const setupFiles = suite.test?.setupFiles ?? [];
export default defineConfig({
  ...suite,
  test: {
    ...suite.test,
    setupFiles: [
      "bench/suite-cpu/leftovers.ts",
      ...(Array.isArray(setupFiles) ? setupFiles : [setupFiles]),
    ],
  },
});
