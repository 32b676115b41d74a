import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// The usage errors of `turnloop -p` (a missing --cwd or --add-dir, an unknown flag or command), as
// a child process: the exit code, the message naming what was wrong, and nothing created.

test.override({ git: true });

describe("usage errors", () => {
  test("a --cwd that does not exist or is not a folder: exit 64 with the path, nothing created", async ({
    cli,
    model,
    repository,
  }) => {
    const missing = join(repository, "no", "such", "dir");
    model.enqueue({
      toolCalls: [{ id: "call_1", name: "create", arguments: '{"path":"a.txt","file_text":"x"}' }],
    });
    const result = await cli(["-p", "make a file", "--cwd", missing, "--allow-all-tools"]);
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(`turnloop: --cwd ${missing} does not exist\n`);
    expect(existsSync(join(repository, "no"))).toBe(false);
    expect(model.requests).toHaveLength(0);
    const file = join(repository, "file.txt");
    await writeFile(file, "x");
    const notFolder = await cli(["-p", "hi", "--cwd", file]);
    expect(notFolder.code).toBe(64);
    expect(notFolder.stderr).toBe(`turnloop: --cwd ${file} is not a directory\n`);
    expect(await readFile(file, "utf8")).toBe("x");
  });

  // A fresh user's trial (round 3, session 19, #11): a mistyped --add-dir was taken silently,
  // and the session ran without the folder the user meant to give it.
  test("an --add-dir that does not exist or is not a folder: exit 64 with the path, on -p and acp", async ({
    cli,
    model,
    repository,
  }) => {
    const file = join(repository, "file.txt");
    await writeFile(file, "x");
    const seen = [];
    for (const [folder, shown, problem] of [
      ["no-such-dir", join(repository, "no-such-dir"), "does not exist"],
      [file, file, "is not a directory"],
    ]) {
      for (const face of [["-p", "hi"], ["acp"]]) {
        const result = await cli([...face, "--add-dir", folder ?? ""], { stdin: "" });
        seen.push({ code: result.code, stderr: result.stderr });
        expect(result.stderr).toBe(`turnloop: --add-dir ${shown} ${problem}\n`);
      }
    }
    expect(seen.map(({ code }) => code)).toEqual([64, 64, 64, 64]);
    expect(model.requests).toHaveLength(0);
  });

  test("an unknown flag suggests the closest one", async ({ cli }) => {
    const result = await cli(["-p", "hi", "--allow-all"]);
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      "turnloop: unknown option --allow-all; did you mean --allow-all-tools? (see turnloop --help)\n",
    );
  });

  test("an unknown command suggests the closest one; a command's extra word is named; a prompt split after -p is named", async ({
    cli,
    environment,
    repository,
  }) => {
    const cases: Array<[string[], string]> = [
      [
        ["session", "list"],
        'unknown command "session"; did you mean sessions? (see turnloop --help)',
      ],
      [["confg"], 'unknown command "confg"; did you mean config? (see turnloop --help)'],
      [
        ["config", "show"],
        'config: unexpected argument "show" (usage: turnloop config [--json] [session options])',
      ],
      [["acp", "--", "x"], 'acp: unexpected argument "x" (usage: turnloop acp [session options])'],
      // Without -p a bare question opens the interactive session (test/cli/interactive-arguments.test.ts).
      [
        ["-p", "What does", "this repository do?"],
        'unknown command "this repository do?"; the prompt is -p\'s one argument: quote it whole (see turnloop --help)',
      ],
    ];
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      cases.map(([args, stderr]) => ({ args, stderr })),
    );
    expect(actual).toEqual(expected);
  });
});
