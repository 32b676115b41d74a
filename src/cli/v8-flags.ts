/**
 * V8 flags that turnloop's faces set while they run, and when (issue 26).
 *
 * Node keeps the compiled code of its own modules (`node:child_process`, `node:http`, …) in its
 * binary and uses it only while V8's flags hash as they did when that code was made: after any
 * `setFlagsFromString`, every built-in module loaded from then on is compiled from its source.
 * Measured in a fresh `node` (v20.20): loading `child_process`, `perf_hooks` and `http` took
 * 2.1 ms CPU, and 7.2 ms after `setFlagsFromString("--liftoff-only")`. So a flag is set as late as
 * what it is for allows: `--liftoff-only` is set by the MCP client's HTTP transports before their
 * first `fetch`, the one use of undici (src/tools/mcp/connection.ts). `acp`, `-p`, the interactive
 * face, `--headless` and `sessions compact` set none. A flag also makes V8 refuse turnloop's own
 * code cache made without it (src/cli/code-cache.cts). `acp` set `--turbo-filter=-normalizeString`
 * once `initialize` was answered, to keep Node's `path.resolve`, made hot by its ES module loader,
 * out of the optimising compiler (about 4 MiB of peak memory) until issue 26's round 3, session
 * 12: the bundle's scripts load without that loader, and without the flag `acp` optimised nothing
 * in a run of one prompt (`--trace-opt`), peaked as low, and used 14 % less CPU up to the prompt's
 * answer (bench/notes/cache.md). `-p` kept V8's young generation at its initial
 * size with `--semi-space-growth-factor=1` until issue 26's round 3, session 11, which measured
 * that under the bin's 2 MiB cap (src/cli/main.ts) it saved 1.3 MiB of peak RSS for about 20 ms
 * more CPU in a 200 ms run (more scavenges, and Node's modules compiled from source;
 * bench/notes/start.md).
 */

/** Sets one V8 flag (`--name` or `--name=value`); `node:v8` is loaded on the first call. */
export function setV8Flag(flag: string): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(flag);
}
