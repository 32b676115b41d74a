import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { bashResultThroughCli } from "../support/one-command.js";
import { describeMarkerCases, UNREAD } from "./marker-cases.js";

/**
 * One end-to-end `turnloop -p` run per mechanism of hidden-programs.test.ts, with harmless
 * marker files in the fixture's temporary repository: each spelling creates its marker without
 * the deny rule (the test can fail), and under `--allow-all-tools --deny-tool 'bash(touch *)'`
 * it is refused and the marker is not created.
 */
const TOUCH = execFileSync("sh", ["-c", "command -v touch"], { encoding: "utf8" }).trim();

describeMarkerCases([
  // A variable that runs a program (finding 3): its value names no touch, so it is asked about.
  { mechanism: "BASH_ENV", command: "BASH_ENV=./x.sh bash -c true", refusal: UNREAD },
  // bash's table from a name to a program (finding 15).
  {
    mechanism: "hash -p",
    command: `hash -p ${TOUCH} ls; ls marker`,
    refusal: "denied by --deny-tool 'bash(touch *)'",
  },
  // A brace expansion building an option (finding 20).
  {
    mechanism: "a brace expansion",
    command: "find . -maxdepth 0 {-exec,touch,marker,\\;}",
    refusal: "denied by --deny-tool 'bash(touch *)'",
  },
  // A glob matching an option-named file (finding 20).
  { mechanism: "a glob", command: "find . -maxdepth 0 -exe? ./x.sh \\;", refusal: UNREAD },
  // What a variable's value can do (session-17 trial, variable-values.test.ts): be an option,
  // be evaluated as arithmetic, be a name's subscript, or come back from the history.
  {
    mechanism: "an option in a variable",
    command: 'o=-exec; find . -maxdepth 0 "$o" ./x.sh \\;',
    refusal: UNREAD,
  },
  { mechanism: "arithmetic", command: "x='a[$(./x.sh)]'; [[ $x -eq 0 ]]", refusal: UNREAD },
  { mechanism: "a subscript", command: "printf -v 'a[$(./x.sh)]' x", refusal: UNREAD },
  {
    mechanism: "the history",
    command: "set -o history -H\nhistory -s ./x.sh\n!!",
    refusal: UNREAD,
  },
]);

describe("an exact grant written back as a flag (finding 14)", () => {
  test("--allow-tool 'bash(touch \\*.m)' runs that command and refuses a longer one", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "x.m"), "");
    const rule = ["--allow-tool", "bash(touch \\*.m)"];
    expect(await bashResultThroughCli({ cli, model }, "touch *.m", rule)).toContain("exit code 0");
    const output = await bashResultThroughCli({ cli, model }, "touch marker x.m", rule);
    expect(output).toContain("Permission denied for 'bash'");
    expect(existsSync(join(repository, "marker"))).toBe(false);
    // The same rule without its escape is a prefix: what the exact grant used to record.
    const wide = ["--allow-tool", "bash(touch *.m)"];
    expect(await bashResultThroughCli({ cli, model }, "touch marker x.m", wide)).toContain(
      "exit code 0",
    );
    expect(existsSync(join(repository, "marker"))).toBe(true);
  });
});
