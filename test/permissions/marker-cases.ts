import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { type ToolCallSpec, toolResultsThroughCli } from "../support/one-command.js";

/** `--allow-all-tools --deny-tool 'bash(touch *)'`. */
export const DENY_TOUCH = ["--allow-all-tools", "--deny-tool", "bash(touch *)"];
/** The refusal of a command that cannot be fully read while deny rules apply. */
export const UNREAD = "no flag allows a command that cannot be fully read while deny rules apply";

/** One spelling that runs `touch marker` (through ./x.sh or itself), and the flags that refuse it. */
export interface MarkerCase {
  mechanism: string;
  command: string;
  /** The flags under which it is refused (default {@link DENY_TOUCH}). */
  flags?: string[];
  /** What the refusal says, besides "Permission denied for 'bash'". */
  refusal: string;
}

/**
 * End-to-end `turnloop -p` runs of the cases, in the fixture's temporary repository holding
 * `x.json`, a file named `-exec` and, per case, a script that creates the case's marker: under
 * `--allow-all-tools` each spelling creates its marker (so the second test can fail), and under
 * its case's flags each is refused, saying so, and no marker is created. The cases share the runs
 * (one for the first test, one per set of flags for the second: the model asks for every call in
 * one reply, each result read by its id), so each case's command has its own names: case N's
 * `marker` reads `marker-N` and its `x.sh` reads `x-N.sh`.
 */
export function describeMarkerCases(cases: readonly MarkerCase[]): void {
  // One run does the work of several: the process suites' limit (vitest.config.ts), not 20 s.
  const timeout = 40_000;
  const named = cases.map((each, index) => ({
    ...each,
    command: each.command
      .replaceAll("marker", `marker-${index}`)
      .replaceAll("x.sh", `x-${index}.sh`),
    marker: `marker-${index}`,
  }));

  async function prepare(repository: string): Promise<void> {
    for (const [index] of cases.entries()) {
      const script = join(repository, `x-${index}.sh`);
      await writeFile(script, `#!/bin/sh\ntouch marker-${index}\n`);
      await chmod(script, 0o755);
    }
    await writeFile(join(repository, "x.json"), "{}\n");
    await writeFile(join(repository, "-exec"), "");
  }

  describe(`${cases.length} spellings of touch marker`, () => {
    test(
      "without the rule each creates its marker (the spellings work)",
      async ({ cli, model, repository }) => {
        await prepare(repository);
        const calls = named.map(({ command }): ToolCallSpec => ["bash", { command }]);
        const { results } = await toolResultsThroughCli({ cli, model }, calls, [
          "--allow-all-tools",
        ]);
        expect(
          named.map(({ mechanism, marker }, index) => ({
            mechanism,
            output: results[index],
            marker: existsSync(join(repository, marker)),
          })),
        ).toEqual(
          named.map(({ mechanism }) => ({
            mechanism,
            output: expect.stringContaining("<exited with exit code 0>"),
            marker: true,
          })),
        );
      },
      timeout,
    );

    test(
      "with each case's flags it is refused and its marker is not created",
      async ({ cli, model, repository }) => {
        await prepare(repository);
        const byFlags = new Map<string, typeof named>();
        for (const each of named) {
          const key = JSON.stringify(each.flags ?? DENY_TOUCH);
          byFlags.set(key, [...(byFlags.get(key) ?? []), each]);
        }
        const outputs = new Map<string, string | undefined>();
        for (const [flags, group] of byFlags) {
          const calls = group.map(({ command }): ToolCallSpec => ["bash", { command }]);
          const { results } = await toolResultsThroughCli({ cli, model }, calls, JSON.parse(flags));
          for (const [index, { mechanism }] of group.entries()) {
            outputs.set(mechanism, results[index]);
          }
        }
        expect(
          named.map(({ mechanism, marker }) => ({
            mechanism,
            denied: outputs.get(mechanism),
            refusal: outputs.get(mechanism),
            marker: existsSync(join(repository, marker)),
          })),
        ).toEqual(
          named.map(({ mechanism, refusal }) => ({
            mechanism,
            denied: expect.stringContaining("Permission denied for 'bash'"),
            refusal: expect.stringContaining(refusal),
            marker: false,
          })),
        );
      },
      timeout,
    );
  });
}
