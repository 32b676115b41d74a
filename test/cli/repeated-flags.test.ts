import { describe, expect } from "vitest";
import { FLAGS } from "../../src/cli/argument-flags.js";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// A fresh user's trial: `--model a --model b` or `--max-turns 3 --max-turns 5` silently took the
// last value. A single-valued flag given twice with different values is now a usage error naming
// both; the same value twice is fine. Every single-valued flag of the one flag table (FLAGS),
// through the built CLI (test/support/usage-errors.ts: one child process for the table, one for
// its first case, one for the short and long names).

/** The flags that take one value (no `multiple`), as the table has them. */
const singleValued = Object.entries(FLAGS).flatMap(([name, spec]) =>
  spec.type === "string" && !("multiple" in spec) ? [name] : [],
);

describe("a single-valued flag given twice", () => {
  test("with different values: exit 64 naming the flag and both values, before anything runs", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    expect(singleValued.length).toBeGreaterThan(20);
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      singleValued.map((name) => ({
        args: [`--${name}`, "first", `--${name}`, "second"],
        stderr: `--${name} given twice (first, second)`,
      })),
    );
    expect(actual).toEqual(expected);
    // Short and long names together, three times: named as first typed, every value listed.
    expect(await cli(["-m", "a:x", "--model", "b:y", "-m", "a:x", "-p", "hi"])).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: "turnloop: -m given 3 times (a:x, b:y, a:x)\n",
    });
    expect(model.requests).toHaveLength(0);
  });

  test("with the same value (and a boolean flag repeated): the run goes on", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "once" });
    const result = await cli(["-p", "hi", "--max-turns", "3", "--max-turns", "3", "-q", "-q"]);
    expect(result).toEqual({ code: 0, signal: null, stdout: "once\n", stderr: "" });
  });
});
