/**
 * Loaded with `node --import` (test/cli/undici-not-loaded.test.ts puts it in NODE_OPTIONS): when
 * the process exits, writes the Node built-in modules it loaded (`process.moduleLoadList`, which
 * names undici as `NativeModule internal/deps/undici/undici` once the global `fetch`, `Headers`
 * or `Response` is touched) to the file named by TURNLOOP_TEST_BUILTIN_LOG, one a line.
 */

import { writeFileSync } from "node:fs";

const file = process.env.TURNLOOP_TEST_BUILTIN_LOG;
if (file !== undefined && file !== "") {
  process.on("exit", () => {
    writeFileSync(file, `${process.moduleLoadList.join("\n")}\n`);
  });
}
