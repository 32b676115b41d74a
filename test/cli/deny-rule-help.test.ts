import { tmpdir } from "node:os";
import { expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";

// The trial of round 3 session 34 (HIGH 8): `--deny-tool 'bash(rm *)'` did not stop `python3 -c
// "os.system('rm x')"` and README said deny rules "judge what finally runs". A deny rule judges
// programs and their words; the help says what it does not judge and what confines effects.
test("--help says what a deny rule judges and that the sandbox confines effects", async () => {
  const result = await runCli(["--help"], {
    cwd: tmpdir(),
    env: cleanEnvironment({ COLUMNS: "200" }),
  });
  expect(result.code).toBe(0);
  const help = result.stdout.replace(/\s+/g, " ");
  expect(help).toContain(
    "--deny-tool <NAME[(pattern)]> deny a tool (wins over allow); both are repeatable; 'bash(rm *)' judges programs and their words, not what python -c or a script does: --sandbox confines effects",
  );
});
