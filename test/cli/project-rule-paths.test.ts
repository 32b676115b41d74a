import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";
import { type ToolCallSpec, toolResultsThroughCli } from "../support/one-command.js";

// Round 3, session 21: since session 20 a repository's `.turnloop/config.json` applies in every
// folder of it, but a relative path in its permission rules was still read against the session's
// folder, so the root's `view(secret/**)` did not cover `<root>/secret/` from `<root>/src`: a
// deny rule the user wrote silently stopped applying. A relative pattern in a config file is now
// read against the project's folder; one in a flag against the session's folder (README,
// "Permissions").

test.override({ git: true });

/** The repository's `secret/creds.txt` and `notes.txt` (both hold "password"), and `src/`. */
async function repositoryWithSecret(repository: string): Promise<string> {
  await mkdir(join(repository, "secret"), { recursive: true });
  await writeFile(join(repository, "secret", "creds.txt"), "password=hunter2xyz\n");
  await writeFile(join(repository, "notes.txt"), "password=public\n");
  const source = join(repository, "src");
  await mkdir(source);
  await writeFile(join(source, "main.ts"), "export const main = 1;\n");
  return source;
}

async function writeConfig(path: string, settings: object): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(settings));
}

/** The model's `calls` through `turnloop -p … flags` started in `cwd`: each call's result. */
async function resultsIn(
  { cli, model }: Pick<CliFixtures, "cli" | "model">,
  cwd: string,
  calls: readonly ToolCallSpec[],
  flags: readonly string[],
): Promise<string[]> {
  const inFolder = { cli: (args: readonly string[]) => cli(args, { cwd }), model };
  return (await toolResultsThroughCli(inFolder, calls, flags)).results;
}

const READS: ToolCallSpec[] = [
  ["view", { path: "../secret/creds.txt" }],
  ["grep", { pattern: "password", path: "..", output_mode: "content" }],
  ["glob", { pattern: "**/*.txt", path: ".." }],
  ["view", { path: "../notes.txt" }],
];

/**
 * What {@link READS} give from `src/` when the root's `secret/` is denied by a rule in `file` (as
 * the refusal names it).
 */
const deniedFromSource = (file: string) => [
  `Permission denied for 'view': denied by the rule "view(secret/**)" in ${file}`,
  "../notes.txt:1:password=public",
  "../notes.txt",
  "1. password=public",
];

describe("a relative path in a config file's permission rule is read against the project's folder", () => {
  test("the root's view(secret/**), from src/: view of ../secret is refused, grep and glob over .. leave it out (-p)", async ({
    cli,
    model,
    repository,
  }) => {
    const source = await repositoryWithSecret(repository);
    await writeConfig(join(repository, ".turnloop", "config.json"), {
      permissions: { deny: ["view(secret/**)"] },
    });
    const results = await resultsIn({ cli, model }, source, READS, ["--allow-all-tools"]);
    expect(results).toEqual(deniedFromSource(join(repository, ".turnloop", "config.json")));
  });

  test("turnloop config from src/ shows the rule as written, with the folder it is read against", async ({
    cli,
    repository,
  }) => {
    const source = await repositoryWithSecret(repository);
    const path = join(repository, ".turnloop", "config.json");
    await writeConfig(path, { permissions: { deny: ["view(secret/**)", "bash(rm *)"] } });
    const result = await cli(["config"], { cwd: source });
    const rows = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("permissions.deny"))
      .map((line) => line.replace(/ +/g, " "));
    expect(rows).toEqual([
      `permissions.deny view(secret/**) from ${path}, paths relative to ${repository}`,
      `permissions.deny bash(rm *) from ${path}`,
    ]);
  });

  test("the user's file's view(secret/**) is read against the session's project too", async ({
    cli,
    model,
    repository,
    home,
  }) => {
    const source = await repositoryWithSecret(repository);
    await writeConfig(join(home, "config.json"), { permissions: { deny: ["view(secret/**)"] } });
    const results = await resultsIn({ cli, model }, source, READS, ["--allow-all-tools"]);
    expect(results).toEqual(deniedFromSource("~/config.json"));
  });

  test("the rule still covers the secret from the root, and a file's ./, .. and ~/ forms are read as paths", async ({
    cli,
    model,
    repository,
    home,
  }) => {
    const source = await repositoryWithSecret(repository);
    await writeFile(join(home, "diary.txt"), "dear diary\n");
    await writeConfig(join(repository, ".turnloop", "config.json"), {
      permissions: { deny: ["view(./secret/**)", "view(src/../notes.txt)", "view(~/diary.txt)"] },
    });
    const results = await resultsIn(
      { cli, model },
      repository,
      [
        ["view", { path: "secret/creds.txt" }],
        ["view", { path: "notes.txt" }],
        ["view", { path: join(home, "diary.txt") }],
        ["view", { path: "src/main.ts" }],
      ],
      ["--allow-all-tools"],
    );
    const file = join(repository, ".turnloop", "config.json");
    expect(results).toEqual([
      `Permission denied for 'view': denied by the rule "view(./secret/**)" in ${file}`,
      `Permission denied for 'view': denied by the rule "view(src/../notes.txt)" in ${file}`,
      `Permission denied for 'view': denied by the rule "view(~/diary.txt)" in ${file}`,
      "1. export const main = 1;",
    ]);
    expect(source).toBe(join(repository, "src"));
  });
});

describe("a relative path in a flag's rule is read against the session's folder", () => {
  test("--deny-tool view(secret/**) from src/ covers src/secret, not the root's secret", async ({
    cli,
    model,
    repository,
  }) => {
    const source = await repositoryWithSecret(repository);
    await mkdir(join(source, "secret"));
    await writeFile(join(source, "secret", "local.txt"), "local\n");
    const results = await resultsIn(
      { cli, model },
      source,
      [
        ["view", { path: "secret/local.txt" }],
        ["view", { path: "../secret/creds.txt" }],
      ],
      ["--allow-all-tools", "--deny-tool", "view(secret/**)"],
    );
    expect(results).toEqual([
      "Permission denied for 'view': denied by --deny-tool 'view(secret/**)'",
      "1. password=hunter2xyz",
    ]);
  });
});
