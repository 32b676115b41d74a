import { fileURLToPath } from "node:url";
import { runCli } from "./cli.js";
import type { CliFixtures } from "./fixtures.js";

/** One command line that must be refused as a usage error, and its one stderr line. */
export interface UsageErrorCase {
  args: string[];
  /** The message after `turnloop: ` (the line's end is added). */
  stderr: string;
  /** Variables added to the fixture's environment for this run. */
  env?: NodeJS.ProcessEnv;
}

/** Runs many command lines through the built CLI's `runCommand` in one child process. */
const RUNNER = fileURLToPath(new URL("./usage-error-runner.mjs", import.meta.url));

/** What one command line showed: the runner's `{ code, stdout, stderr }` or `{ thrown }`. */
type Outcome = Record<string, unknown>;

/**
 * Runs every case through the built CLI and gives what each run showed beside what a usage error
 * shows (exit 64, nothing on stdout, `turnloop: <stderr>\n`), each with its arguments (and
 * variables), so that one `toEqual` names the case that differs. The first case runs as a CLI
 * child process of its own (exit code, signal and streams as a user sees them); all of them,
 * the first again, run one after another in one child process (test/support/usage-error-runner.mjs:
 * the same `runCommand`, each case with its own environment and folder), so a table of refusals
 * costs two Node starts instead of one each. Worth it for refusals of the command line itself
 * (about 0.2 s of CPU for the runner, against 0.1-0.2 s a CLI child); a refusal that comes from
 * the run config (a config file, an unknown model) loads the face's modules in the runner, without
 * the CLI's code cache (about 0.6 s), so a table of a few such cases saves nothing
 * (bench/notes/suite37.md).
 */
export async function usageErrorOutcomes(
  fixtures: Pick<CliFixtures, "cli" | "environment" | "repository">,
  cases: readonly UsageErrorCase[],
): Promise<{ actual: unknown[]; expected: unknown[] }> {
  const { cli, environment, repository } = fixtures;
  const label = ({ args, env }: UsageErrorCase) => (env === undefined ? { args } : { args, env });
  const [first] = cases;
  const [child, outcomes] = await Promise.all([
    first === undefined
      ? undefined
      : cli(first.args, first.env === undefined ? undefined : { env: first.env }),
    runInOneProcess(
      cases.map((entry) => ({ args: entry.args, env: environment(entry.env), cwd: repository })),
      { cwd: repository, env: environment() },
    ),
  ]);
  const actual: unknown[] = cases.map((entry, index) => ({
    ...label(entry),
    ...outcomes[index],
  }));
  const refusal = (entry: UsageErrorCase) => ({
    ...label(entry),
    code: 64,
    stdout: "",
    stderr: `turnloop: ${entry.stderr}\n`,
  });
  const expected: unknown[] = cases.map(refusal);
  if (first !== undefined && child !== undefined) {
    actual.push({ ...label(first), childProcess: true, ...child });
    expected.push({ ...refusal(first), childProcess: true, signal: null });
  }
  return { actual, expected };
}

/** The runner's outcome of each case, in order; throws with its output if it failed. */
async function runInOneProcess(
  cases: ReadonlyArray<{ args: string[]; env: NodeJS.ProcessEnv; cwd: string }>,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Outcome[]> {
  const result = await runCli([], { ...options, file: RUNNER, stdin: JSON.stringify(cases) });
  if (result.code !== 0) {
    throw new Error(`the usage-error runner failed (${result.code}): ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as Outcome[];
}
