import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { type UsageErrorCase, usageErrorOutcomes } from "../support/usage-errors.js";

// A fresh user's trial: `turnloop -p hi --max-turns 0` was accepted, sent no request and exited 2.
// Every flag that takes a number is now checked in one place (src/cli/numeric-settings.ts, `NUMERIC_FLAGS`): decimal
// digits only, within the flag's range, else exit 64 naming the flag, its range and the value,
// before any request; `--max-turns -1` (a value parseArgs calls ambiguous) is refused the same
// way. Through the built CLI as a child process.

const maxTurns = (value: string) =>
  `--max-turns must be a whole number ≥ 1 (model requests per prompt), not "${value}"`;

const cases: UsageErrorCase[] = [
  ...["0", "-1", "1.5", "abc", "", "0x10", "1e2"].map((value) => ({
    args: ["-p", "hi", "--max-turns", value],
    stderr: maxTurns(value),
  })),
  { args: ["-p", "hi", "--max-turns=-1"], stderr: maxTurns("-1") },
  // The interactive session, the ACP agent and `config` read the same flag.
  { args: ["--max-turns", "0"], stderr: maxTurns("0") },
  { args: ["acp", "--max-turns", "0"], stderr: maxTurns("0") },
  { args: ["config", "--max-turns", "2.5"], stderr: maxTurns("2.5") },
  {
    args: ["-p", "hi", "--autopilot", "--max-autopilot-continues", "-2"],
    stderr: '--max-autopilot-continues must be a whole number ≥ 0 (nudges in autopilot), not "-2"',
  },
  {
    args: ["-p", "hi", "--max-autopilot-continues", "two"],
    stderr: '--max-autopilot-continues must be a whole number ≥ 0 (nudges in autopilot), not "two"',
  },
  {
    args: ["-p", "hi", "--context-window", "1e4"],
    stderr: '--context-window must be a whole number ≥ 1000 (tokens), not "1e4"',
  },
  {
    args: ["acp", "--context-window", "999"],
    stderr: '--context-window must be a whole number ≥ 1000 (tokens), not "999"',
  },
  {
    args: ["--headless", "--port", "70000"],
    stderr: '--port must be a whole number from 0 to 65535 (a TCP port), not "70000"',
  },
  {
    args: ["serve", "--port", ""],
    stderr: '--port must be a whole number from 0 to 65535 (a TCP port), not ""',
  },
];

describe("flags that take a number", () => {
  test("0, -1, 1.5, words and other spellings exit 64 naming the flag, its range and the value; nothing is sent", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes({ cli, environment, repository }, cases);
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("a config file's maxTurns of 0 is refused as the flag is; valid values run", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, ".turnloop"));
    const file = join(repository, ".turnloop", "config.json");
    await writeFile(file, '{"maxTurns": 0}');
    expect(await cli(["-p", "hi"])).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${file}: maxTurns: must be at least 1, not the number 0\n`,
    });
    expect(model.requests).toHaveLength(0);

    await writeFile(file, '{"maxTurns": 1}');
    model.enqueue({ text: "one" }, { text: "two" });
    const one = await cli(["-p", "hi", "--quiet", "--max-turns", "1"]);
    // 0 nudges is a choice: autopilot offers task_complete and never nudges (exit 2 without it).
    const noNudge = await cli([
      "-p",
      "hi",
      "--quiet",
      "--autopilot",
      "--max-autopilot-continues",
      "0",
    ]);
    expect([one.code, one.stdout, noNudge.code, noNudge.stdout]).toEqual([0, "one\n", 2, "two\n"]);
    expect(model.requests).toHaveLength(2);
  });
});
