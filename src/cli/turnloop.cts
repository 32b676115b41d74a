#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2
/**
 * The package's `bin` (`dist/cli/turnloop.cjs`, what `turnloop` runs once installed or linked).
 * A CommonJS file, so Node runs it without its ES module loader: `turnloop --version` (or `-v`)
 * alone is answered here with Node's own start-up cost and nothing more (issue 26 figure 2a;
 * bench/notes/targets.md, "Entry lane"). Every other command runs main.ts, bundled as the script
 * `dist/cli/scripts/main.js`, through code-cache.cts (V8's code cache kept between runs), which
 * loads the rest of the bundle's scripts as they are needed. `dist/cli/main.js`, the ES module
 * that editors and the SDK start directly, imports this file.
 *
 * The first line is main.ts's: it starts Node with V8's young generation capped at, and started at,
 * 2 MiB a semi-space (issue 27 item 3 and issue 26, explained there). scripts/bundle.mjs makes this file executable and fails a build whose first
 * line lost the flag.
 */

import fs = require("node:fs");

/** The package's version; test/cli/modules-loaded.test.ts checks it against package.json. */
const VERSION = "0.1.0";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  // Written to the descriptor, not `process.stdout`: building that stream loads about twenty of
  // Node's own modules. A reader that closed the pipe early (`turnloop -v | true`) is its choice.
  try {
    fs.writeSync(1, `${VERSION}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") {
      throw error;
    }
  }
} else {
  resetYoungGenerationFlag();
  try {
    const codeCache = require("./code-cache.cjs") as typeof import("./code-cache.cjs");
    codeCache.runScript(`${__dirname}/scripts/main.js`);
  } catch (error) {
    process.stderr.write(`turnloop: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

/**
 * Sets the first line's `--max-semi-space-size` and `--min-semi-space-size` back to their default
 * (0). Those flags make V8's flag hash (`v8.cachedDataVersionTag()`) differ from the one Node's
 * built-in code cache was made under, so each of Node's own modules that loads is compiled from
 * its source instead (issue 26 figure 7a: in `turnloop acp`, modules for streams, pipes and the
 * argument parser before its `initialize` answer); turnloop's own code cache is made under the
 * default hash too (code-cache.cts). The young generation's sizes were fixed when the heap was
 * made, so the reset keeps them and makes the hash match again for every module and script loaded
 * from here on.
 *
 * The flags are set through V8's binding, `process.binding("v8")` (the `setFlagsFromString` that
 * `node:v8` wraps), not `node:v8`: loading `node:v8` loads Node's stream modules with it
 * (`internal/heap_utils`), about 20 of them, compiled from source while the hash still differs
 * (bench/notes/start.md: about 3 ms of CPU; they load from the code cache after the reset).
 * Node deprecates `process.binding` (DEP0111) and warns once for `"v8"`; the warning is kept off
 * stderr for that one call (under `--no-deprecation` it is off already, and the property cannot be
 * assigned). Where the binding is gone (a later Node, the permission model), the
 * flags go through `node:v8` as before. `dist/cli/main.js` does the same (scripts/bundle.mjs).
 */
function resetYoungGenerationFlag(): void {
  const flag = "--max-semi-space-size=0 --min-semi-space-size=0";
  const { binding } = process as unknown as { binding?: (name: string) => unknown };
  // `--no-deprecation` makes `process.noDeprecation` read-only (and true): assign only when off.
  const quiet = process.noDeprecation === true;
  if (!quiet) {
    process.noDeprecation = true;
  }
  try {
    const v8 = binding?.call(process, "v8") as { setFlagsFromString?: (flags: string) => void };
    if (typeof v8?.setFlagsFromString === "function") {
      v8.setFlagsFromString(flag);
      return;
    }
  } catch {
    // No binding to take: `node:v8` below.
  } finally {
    if (!quiet) {
      process.noDeprecation = false;
    }
  }
  process.getBuiltinModule("node:v8").setFlagsFromString(flag);
}
