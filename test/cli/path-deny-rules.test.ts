import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";
import { type ToolCallSpec, toolResultsThroughCli } from "../support/one-command.js";

type Call = ToolCallSpec;

/**
 * Has the model make `calls` in one reply through `turnloop -p` with `flags`; returns each
 * call's result, in call order.
 */
async function resultsThroughCli(
  fixtures: Pick<CliFixtures, "cli" | "model">,
  calls: readonly Call[],
  flags: readonly string[],
): Promise<string[]> {
  return (await toolResultsThroughCli(fixtures, calls, flags)).results;
}

/** A workspace with a secret folder and a public file that both hold "password". */
async function writeSecrets(repository: string): Promise<void> {
  await mkdir(join(repository, "secret", "deeper"), { recursive: true });
  await writeFile(join(repository, "secret", "creds.txt"), "password=hunter2xyz\n");
  await writeFile(join(repository, "secret", "deeper", "key.txt"), "password=deepkey\n");
  await writeFile(join(repository, "notes.txt"), "before\npassword=public\nafter\n");
}

const searches: Call[] = [
  ["grep", { pattern: "password", output_mode: "content", "-C": 1 }],
  ["grep", { pattern: "password", output_mode: "count" }],
  ["grep", { pattern: "password" }],
  ["grep", { pattern: "password", output_mode: "content", "-n": false }],
  ["glob", { pattern: "**/*.txt" }],
  ["view", { path: "." }],
];

describe("a path deny rule of a reading tool covers every tool that reads files (trial finding 14)", () => {
  test("without a rule the searches show the secret files (the test can fail)", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const [content, count, files, plain, glob, listing] = await resultsThroughCli(
      { cli, model },
      searches,
      [],
    );
    expect(content).toContain("secret/creds.txt:1:password=hunter2xyz");
    expect(count).toContain("secret/creds.txt:1");
    expect(files).toContain("secret/creds.txt");
    expect(plain).toContain("secret/creds.txt:password=hunter2xyz");
    expect(glob).toContain("./secret/creds.txt");
    expect(listing).toContain("secret/");
  });

  test("view(secret/**) leaves the folder's files out of grep, glob and view of a folder", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const [content, count, files, plain, glob, listing] = await resultsThroughCli(
      { cli, model },
      searches,
      ["--deny-tool", "view(secret/**)"],
    );
    expect(content).toBe("notes.txt-1-before\nnotes.txt:2:password=public\nnotes.txt-3-after");
    expect(count).toBe("notes.txt:1");
    expect(files).toBe("notes.txt");
    expect(plain).toBe("notes.txt:password=public");
    expect(glob).toBe("./notes.txt");
    expect(listing).toBe("notes.txt");
  });

  test("grep(**/creds.txt) hides the file from view's folder listing and from glob, and denies view of it", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const results = await resultsThroughCli(
      { cli, model },
      [
        ["view", { path: "secret" }],
        ["glob", { pattern: "secret/*" }],
        ["view", { path: "secret/creds.txt" }],
        ["grep", { pattern: "password", path: "secret", output_mode: "content" }],
      ],
      ["--deny-tool", "grep(**/creds.txt)"],
    );
    expect(results).toEqual([
      "deeper/\ndeeper/key.txt",
      "No files matched the pattern.",
      "Permission denied for 'view': denied by --deny-tool 'grep(**/creds.txt)'",
      "secret/deeper/key.txt:1:password=deepkey",
    ]);
  });

  test("calls naming the folder or a file in it are denied, edit included (its diff shows the file)", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const results = await resultsThroughCli(
      { cli, model },
      [
        ["view", { path: "secret/creds.txt" }],
        ["grep", { pattern: "password", path: "secret" }],
        ["glob", { pattern: "secret/**" }],
        ["edit", { path: "secret/creds.txt", old_str: "hunter2", new_str: "changed" }],
      ],
      ["--allow-all-tools", "--deny-tool", "view(secret/**)"],
    );
    expect(results).toEqual(
      ["view", "grep", "glob", "edit"].map(
        (tool) => `Permission denied for '${tool}': denied by --deny-tool 'view(secret/**)'`,
      ),
    );
    expect(await readFile(join(repository, "secret", "creds.txt"), "utf8")).toBe(
      "password=hunter2xyz\n",
    );
  });
});

describe("a path deny rule of an editing tool covers every tool that writes files", () => {
  test("edit(secret/**) stops create, overwrite or not, and leaves reading alone", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const results = await resultsThroughCli(
      { cli, model },
      [
        ["create", { path: "secret/creds.txt", file_text: "overwritten", overwrite: true }],
        ["create", { path: "secret/new.txt", file_text: "new" }],
        ["view", { path: "secret/creds.txt" }],
      ],
      ["--allow-all-tools", "--deny-tool", "edit(secret/**)"],
    );
    expect(results).toEqual([
      "Permission denied for 'create': denied by --deny-tool 'edit(secret/**)'",
      "Permission denied for 'create': denied by --deny-tool 'edit(secret/**)'",
      "1. password=hunter2xyz",
    ]);
    expect(await readFile(join(repository, "secret", "creds.txt"), "utf8")).toBe(
      "password=hunter2xyz\n",
    );
  });

  test("a rule without a pattern switches off only its own tool", async ({
    cli,
    model,
    repository,
  }) => {
    await writeSecrets(repository);
    const results = await resultsThroughCli(
      { cli, model },
      [
        ["grep", { pattern: "public" }],
        ["view", { path: "notes.txt", view_range: [2, 2] }],
      ],
      ["--deny-tool", "grep"],
    );
    expect(results).toEqual([
      "Permission denied for 'grep': denied by --deny-tool grep",
      "2. password=public",
    ]);
  });
});
