import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { bashResultThroughCli } from "../support/one-command.js";

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
 * Two end-to-end `turnloop -p` runs per case, in the fixture's temporary repository holding
 * `x.sh` (which creates `marker`), `x.json` and a file named `-exec`: under `--allow-all-tools`
 * the spelling creates the marker (so the second test can fail), and under the case's flags it
 * is refused, saying so, and the marker is not created.
 */
export function describeMarkerCases(cases: readonly MarkerCase[]): void {
  describe.each(cases)("$mechanism: $command", ({ command, flags = DENY_TOUCH, refusal }) => {
    async function prepare(repository: string): Promise<void> {
      await writeFile(join(repository, "x.sh"), "#!/bin/sh\ntouch marker\n");
      await chmod(join(repository, "x.sh"), 0o755);
      await writeFile(join(repository, "x.json"), "{}\n");
      await writeFile(join(repository, "-exec"), "");
    }

    test("without the rule the marker is created (the spelling works)", async ({
      cli,
      model,
      repository,
    }) => {
      await prepare(repository);
      const output = await bashResultThroughCli({ cli, model }, command, ["--allow-all-tools"]);
      expect(output).toContain("<exited with exit code 0>");
      expect(existsSync(join(repository, "marker"))).toBe(true);
    });

    test("with the case's flags it is refused and the marker is not created", async ({
      cli,
      model,
      repository,
    }) => {
      await prepare(repository);
      const output = await bashResultThroughCli({ cli, model }, command, flags);
      expect(output).toContain("Permission denied for 'bash'");
      expect(output).toContain(refusal);
      expect(existsSync(join(repository, "marker"))).toBe(false);
    });
  });
}
