/**
 * Loaded with `node --import`: appends one line to the file named by TURNLOOP_TEST_CODE_CACHE_LOG
 * for each `vm.Script` made with a file name (the bundle's scripts, src/cli/code-cache.cts): what
 * V8 did with the code cache it was given, `<accepted|rejected|none> <file>`, so that a test sees
 * whether a run took the cache without timing it.
 */

import { appendFileSync } from "node:fs";
import vm from "node:vm";

const file = process.env.TURNLOOP_TEST_CODE_CACHE_LOG;
if (file !== undefined && file !== "") {
  const Script = vm.Script;
  vm.Script = class CacheRecordedScript extends Script {
    constructor(code, options) {
      super(code, options);
      if (options?.filename !== undefined) {
        const outcome =
          options.cachedData === undefined
            ? "none"
            : this.cachedDataRejected === true
              ? "rejected"
              : "accepted";
        appendFileSync(file, `${outcome} ${options.filename}\n`);
      }
    }
  };
}
