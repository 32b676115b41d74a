import type { CliFixtures } from "./fixtures.js";

/** One command line that must be refused as a usage error, and its one stderr line. */
export interface UsageErrorCase {
  args: string[];
  /** The message after `turnloop: ` (the line's end is added). */
  stderr: string;
  /** Variables added to the fixture's environment for this run. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs every case through the built CLI at once and gives what each run showed beside what a
 * usage error shows (exit 64, no signal, nothing on stdout, `turnloop: <stderr>\n`), each with
 * its arguments (and variables), so that one `toEqual` names the case that differs.
 */
export async function usageErrorOutcomes(
  cli: CliFixtures["cli"],
  cases: readonly UsageErrorCase[],
): Promise<{ actual: unknown[]; expected: unknown[] }> {
  const label = ({ args, env }: UsageErrorCase) => (env === undefined ? { args } : { args, env });
  const actual = await Promise.all(
    cases.map(async (entry) => ({
      ...label(entry),
      ...(await cli(entry.args, entry.env === undefined ? undefined : { env: entry.env })),
    })),
  );
  const expected = cases.map((entry) => ({
    ...label(entry),
    code: 64,
    signal: null,
    stdout: "",
    stderr: `turnloop: ${entry.stderr}\n`,
  }));
  return { actual, expected };
}
