/**
 * The suite's own configuration (vitest.config.ts) with bench/suite-cpu/recorder.ts set up first
 * in every file, so its `afterAll` runs last (vitest runs after-hooks in reverse): `SUITE_CPU_LOG=
 * /tmp/x.jsonl npx vitest run --config bench/suite-cpu/vitest.config.ts --project processes
 * test/cli` logs each file's CPU.
 */

import { defineConfig } from "vitest/config";
import suite from "../../vitest.config.js";

const setupFiles = suite.test?.setupFiles ?? [];
export default defineConfig({
  ...suite,
  test: {
    ...suite.test,
    setupFiles: [
      "bench/suite-cpu/recorder.ts",
      ...(Array.isArray(setupFiles) ? setupFiles : [setupFiles]),
    ],
  },
});
