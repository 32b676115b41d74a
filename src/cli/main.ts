#!/usr/bin/env node
/**
 * Entry point of the `turnloop` command. `turnloop --version` (or `-v`) alone is answered here,
 * before any other module loads (issue 26: its cost is Node's own start-up); every other command
 * loads run.ts.
 */

const VERSION = "0.1.0";

// `turnloop … | head` (or `2>&1 | head`) closes our stdout or stderr early; that is the reader's
// choice, not a crash. Unhandled, an EPIPE on stderr would kill the process mid-prompt, leaving
// its turn open in the log and its session lock behind. The prompt command also listens and
// cancels its prompt.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") {
      throw error;
    }
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  import("./run.js")
    .then(({ runCommand }) => runCommand(argv, VERSION))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        process.stderr.write(
          `turnloop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
        process.exitCode = 1;
      },
    );
}
