/**
 * Loaded with `node --import` (test/cli/released-locks.test.ts puts it in NODE_OPTIONS): records
 * each error of a released web stream lock whose stack V8 writes (Node 20 builds one the first
 * time a process releases a reader and one for a writer, each read back through a regular
 * expression of another realm) and each `vm` context Node makes for that (`runInNewContext`,
 * `createContext`), and, when the process exits, writes one line each to the file named by
 * TURNLOOP_TEST_RELEASED_LOCK_LOG.
 */

import { writeFileSync } from "node:fs";
import vm from "node:vm";

const file = process.env.TURNLOOP_TEST_RELEASED_LOCK_LOG;
if (file !== undefined && file !== "") {
  const seen = [];
  const previous = Error.prepareStackTrace;
  Error.prepareStackTrace = (error, frames) => {
    if (/released|releasing/i.test(String(error?.message))) {
      seen.push(`error: ${error.message}, ${frames.length} frames`);
    }
    return previous === undefined ? `${error}` : previous(error, frames);
  };
  for (const name of ["runInNewContext", "createContext"]) {
    const original = vm[name];
    vm[name] = function recorded(...parts) {
      seen.push(`context: ${name}`);
      return original.apply(this, parts);
    };
  }
  process.on("exit", () => {
    writeFileSync(file, seen.map((line) => `${line}\n`).join(""));
  });
}
