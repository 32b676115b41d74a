#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2
/**
 * Entry point of the `turnloop` command. The build bundles it with everything it imports and
 * makes each bundle file a script (scripts/code-cache-scripts.mjs): this one is
 * `dist/cli/scripts/main.js`, which both entries run through code-cache.cts, the package's `bin`
 * (turnloop.cts) for every command but a lone `--version`, and `dist/cli/main.js`, the ES module
 * that editors and the SDK start directly (written by scripts/bundle.mjs). `--version` (or `-v`)
 * alone is answered here too, before any other module of turnloop's loads (issue 26); every other
 * command loads run.ts.
 *
 * The first line, which both entries have too, starts Node with V8's young generation capped at
 * 2 MiB a semi-space (issue 27 item 3: by default it grows to 16 MiB on 64-bit Node while a
 * prompt line of a few MB is parsed, and an ACP agent then peaked ×5–8 the line over idle; capped,
 * ×3.0–3.3; figures in bench/notes/targets.md, "semispace lane"). V8 fixes that limit when the
 * process starts, so it can only be a flag of `node`: `env -S` passes it (GNU coreutils ≥ 8.30,
 * BSD and macOS `env`; npm's Windows shims read it from this line too). `node dist/cli/main.js`
 * runs without the cap; `NODE_OPTIONS=--max-semi-space-size=2` sets it there. scripts/bundle.mjs
 * keeps that line in both entries and makes them executable. `--min-semi-space-size=2` starts
 * the young generation at that size instead of growing it from 1 MiB while the scripts load,
 * whose objects nearly all survive: fewer scavenges, no more peak memory (issue 26: a `-p` run
 * −2.5 M instructions, ACP's `initialize` −4.8 M; bench/notes/start23.md). Both entries set both
 * flags back to their defaults before this script compiles (turnloop.cts says why).
 */

const VERSION = "0.1.0";

// `turnloop … | head` (or `2>&1 | head`) closes our stdout or stderr early; that is the reader's
// choice, not a crash. Unhandled, an EPIPE on stderr would kill the process mid-prompt, leaving
// its turn open in the log and its session lock behind. A write to a terminal that is gone (its
// window closed, `tmux kill-session`, a dropped ssh link) fails with EIO: the same, and the faces
// treat it as SIGHUP. The prompt command and the interactive face also listen and cancel.
// Any other failed write (a full disk: `-p … > out.txt` on a full file system, ENOSPC) is said
// once on stderr as one `turnloop:` line, and the run goes on to its end, its session kept:
// the exit code is 1 where it would have been 0 (README, Exit codes; trial 47 F2).
/** The first failed write to stdout or stderr other than EPIPE or EIO, as said on stderr. */
let outputFailure: string | undefined;
for (const [name, stream] of [
  ["stdout", process.stdout],
  ["stderr", process.stderr],
] as const) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "EIO" || outputFailure !== undefined) {
      return;
    }
    outputFailure = `turnloop: could not write to ${name}: ${error.message.replace(/, write$/, "")}`;
    if (name === "stdout") {
      process.stderr.write(`${outputFailure}\n`);
    }
  });
}
// Until a face listens for SIGTERM or SIGHUP itself (the prompt's stops, the interactive face,
// `acp`, the server: each before its first prompt), one of them ends turnloop with a line saying
// so and the signal's exit code, instead of Node's silent exit (trial 47 F6). The first listener
// a face adds hands them back to it, and to Node's default once it removes its own.
const startupStops = (["SIGTERM", "SIGHUP"] as const).map((signal) => {
  const listener = () => {
    process.stderr.write(`turnloop: stopped by ${signal} before any prompt was sent\n`);
    process.exit(signal === "SIGTERM" ? 143 : 129);
  };
  process.on(signal, listener);
  return { signal, listener };
});
process.on("newListener", function handOverStops(event) {
  if (event === "SIGTERM" || event === "SIGHUP") {
    process.off("newListener", handOverStops);
    // Once the face's listener is added: a signal left with no listener meanwhile would have
    // Node stop watching it, and the face's would never be called.
    queueMicrotask(() => {
      for (const { signal, listener } of startupStops) {
        process.off(signal, listener);
      }
    });
  }
});
process.on("exit", () => {
  letGoOfClosedTerminal();
  if (outputFailure !== undefined && (process.exitCode ?? 0) === 0) {
    process.exitCode = 1;
  }
});

/**
 * As the process ends, Node puts back the terminal settings that stdin, stdout and stderr had when
 * it started, and aborts ("Assertion failed … node::ResetStdio()", exit 134 instead of ours) when
 * that terminal is gone: `tcsetattr` fails with EIO after a hangup (Node's src/node.cc,
 * `ResetStdio`). Each of these descriptors that is still a character device but no longer a
 * terminal (and not /dev/null) is pointed at /dev/null first: Node skips a descriptor that names
 * another file than at start. A live terminal is left alone (its settings are put back).
 * `node:tty` is loaded only for a character device other than /dev/null: a run on pipes, files
 * or /dev/null (an editor's, a script's, the tests') ends without loading it (issue 26).
 */
function letGoOfClosedTerminal(): void {
  const { closeSync, fstatSync, openSync, statSync } = process.getBuiltinModule("node:fs");
  const nowhere = "/dev/null";
  for (const descriptor of [0, 1, 2]) {
    try {
      const file = fstatSync(descriptor);
      if (
        !file.isCharacterDevice() ||
        file.rdev === statSync(nowhere).rdev ||
        process.getBuiltinModule("node:tty").isatty(descriptor)
      ) {
        continue;
      }
      closeSync(descriptor);
      // The lowest free descriptor: the one just closed.
      openSync(nowhere, descriptor === 0 ? "r" : "w");
    } catch {
      // Closed already: Node skips it too.
    }
  }
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
