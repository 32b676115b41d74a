/**
 * Runs many `turnloop` command lines in one Node process, each through the built CLI's
 * `runCommand` (dist/cli/run.js, what dist/cli/main.js runs for every command but a lone
 * `--version`) with its own environment and working folder, and prints what each showed as one
 * JSON array on stdout: `{ code, stdout, stderr }` (code: runCommand's exit code), or
 * `{ thrown }` (the error's message) when runCommand threw, where the CLI would exit 1 with it.
 *
 * stdin: a JSON array of `{ args: string[], env: Record<string, string>, cwd: string }`. The cases
 * run one after another; process.env, the working folder and the writes to process.stdout and
 * process.stderr are each case's own while it runs. For command lines that are refused before
 * anything runs (test/support/usage-errors.ts), where a CLI child each (0.1-0.2 s of CPU) would
 * test the process boundary again and again; that helper still runs one case as a real child.
 */

import { runCommand } from "../../dist/cli/run.js";

const VERSION = "0.1.0";

const chunks = [];
for await (const chunk of process.stdin) {
  chunks.push(chunk);
}
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const { stdout, stderr } = process;
const writeOut = stdout.write.bind(stdout);
const writeErr = stderr.write.bind(stderr);
const startingFolder = process.cwd();

/** Makes `stream.write` add to `into` (strings or bytes) and call back at once. */
function capture(stream, into) {
  stream.write = (chunk, encoding, callback) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") {
      queueMicrotask(() => done());
    }
    return true;
  };
}

const outcomes = [];
for (const { args, env, cwd } of cases) {
  const written = { stdout: [], stderr: [] };
  process.env = { ...env };
  process.chdir(cwd);
  capture(stdout, written.stdout);
  capture(stderr, written.stderr);
  try {
    const code = await runCommand(args, VERSION);
    outcomes.push({ code, stdout: written.stdout.join(""), stderr: written.stderr.join("") });
  } catch (error) {
    outcomes.push({ thrown: error instanceof Error ? error.message : String(error) });
  } finally {
    stdout.write = writeOut;
    stderr.write = writeErr;
    process.chdir(startingFolder);
  }
}
writeOut(`${JSON.stringify(outcomes)}\n`);
// Whatever a case left running (a regression that starts a face) must not keep the runner alive;
// a write to a pipe is synchronous on Linux, so the array is out.
process.exit(0);
