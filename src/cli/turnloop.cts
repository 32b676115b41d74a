#!/usr/bin/env -S node --max-semi-space-size=2
/**
 * The package's `bin` (`dist/cli/turnloop.cjs`, what `turnloop` runs once installed or linked).
 * A CommonJS file, so Node runs it without its ES module loader: `turnloop --version` (or `-v`)
 * alone is answered here with Node's own start-up cost and nothing more (issue 26 figure 2a;
 * bench/notes/targets.md, "Entry lane"). Every other command imports main.ts (`dist/cli/main.js`,
 * the bundled ES module entry, which editors and the SDK also start directly), which reads the
 * same arguments.
 *
 * The first line is main.ts's: it starts Node with V8's young generation capped (issue 27 item 3,
 * explained there). scripts/bundle.mjs makes this file executable and fails a build whose first
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
  // As main.ts does first (it explains why), but before Node's ES module loader loads, so that
  // its modules come from Node's code cache too.
  process.getBuiltinModule("node:v8").setFlagsFromString("--max-semi-space-size=0");
  import("./main.js").catch((error: unknown) => {
    process.stderr.write(`turnloop: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
