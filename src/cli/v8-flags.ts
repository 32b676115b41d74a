/**
 * V8 flags that turnloop sets while it runs, and when (issue 26).
 *
 * Node keeps the compiled code of its own modules (`node:child_process`, `node:http`, …) in its
 * binary and uses it only while V8's flags hash as they did when that code was made: after any
 * `setFlagsFromString`, every built-in module loaded from then on is compiled from its source.
 * Measured in a fresh `node` (v20.20): loading `child_process`, `perf_hooks` and `http` took
 * 2.1 ms CPU, and 7.2 ms after `setFlagsFromString("--liftoff-only")`. So a flag is set as late as
 * what it is for allows: the interactive face sets {@link compileWasmWithBaselineOnly} after its
 * input box is drawn (interactive/run.ts), `acp` once `initialize` is answered (src/acp/start.ts),
 * every other command in src/cli/run.ts after its arguments are read.
 */

/** Sets one V8 flag (`--name` or `--name=value`); `node:v8` is loaded on the first call. */
export function setV8Flag(flag: string): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(flag);
}

/**
 * Node's `fetch` (undici, which MCP's HTTP transports use) parses HTTP with a WebAssembly module
 * that V8 optimises in the background, and the process waits for that work at exit (about 130 ms
 * and 25 MiB per run, bench/RESULTS.md). The baseline compiler alone is plenty for model streams.
 * Must run before the first `fetch`.
 */
export function compileWasmWithBaselineOnly(): void {
  setV8Flag("--liftoff-only");
}
