import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 15, #1): a session resumed from another folder ran with
// the rules of the folder turnloop was started in, not its own folder's `.turnloop/config.json`:
// the repository's deny rule did not stop `touch`, and an unrelated folder's deny rule applied
// instead. A session now runs with its own folder's project file (trusted or not as that folder
// is), on `-p --resume`, the interactive `--resume` and `/resume` (src/session/host.ts `configOf`).

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

async function projectConfig(folder: string, settings: object): Promise<string> {
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  const path = join(folder, ".turnloop", "config.json");
  await writeFile(path, JSON.stringify(settings));
  return path;
}

/** Another folder, whose project file denies `bash(echo *)`. */
async function otherFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-other-"));
  folders.push(folder);
  await projectConfig(folder, { permissions: { deny: ["bash(echo *)"] } });
  return folder;
}

/** The model asks to run `command`, then says "Done.". */
function runs(model: CliFixtures["model"], command: string): void {
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
}

/** A session made in the repository, whose project file denies `bash(touch *)`. */
async function repositorySession({
  cli,
  model,
  repository,
}: Pick<CliFixtures, "cli" | "model" | "repository">): Promise<string> {
  await projectConfig(repository, { permissions: { deny: ["bash(touch *)"] } });
  model.enqueue({ text: "first" });
  const first = await cli(["-p", "hi"]);
  expect(first.code, first.stderr).toBe(0);
  return printedSessionId(first.stderr);
}

describe("a session resumed from another folder runs with its own folder's project config", () => {
  // One session of the repository, resumed from one other folder by each face in turn.
  test("-p --resume, the interactive --resume and /resume: the session's folder's deny rule applies, the start folder's does not, and /permissions lists the session's folder's rules", async ({
    cli,
    model,
    repository,
  }) => {
    const id = await repositorySession({ cli, model, repository });
    const other = await otherFolder();
    // -p --resume.
    // Both calls in one reply of one resumed run.
    model.enqueue(
      {
        toolCalls: ["touch denied.txt", "echo hi"].map((command, index) => ({
          id: `call_${index}`,
          name: "bash",
          arguments: JSON.stringify({ command }),
        })),
      },
      { text: "Done." },
    );
    const resumed = await cli(["-p", "go", "--allow-all-tools", "--resume", id], { cwd: other });
    expect(resumed.code).toBe(0);
    const file = join(repository, ".turnloop", "config.json").replace(
      /[.*+?^${}()|[\]\\]/g,
      "\\$&",
    );
    expect(resumed.stderr).toMatch(
      new RegExp(
        `✗ bash touch denied\\.txt denied \\([\\d.]+ (?:ms|s|min)\\): Permission denied for 'bash': denied by the rule "bash\\(touch \\*\\)" in ${file}\n`,
      ),
    );
    expect(existsSync(join(repository, "denied.txt"))).toBe(false);
    expect(resumed.stderr).toMatch(/✓ bash echo hi/);

    // The interactive --resume.
    runs(model, "touch denied.txt");
    const interactive = await cli(["--resume", id, "--allow-all-tools"], {
      cwd: other,
      stdin: "go\n",
    });
    expect(interactive.code).toBe(0);
    expect(interactive.stdout).toContain(
      `denied by the rule "bash(touch *)" in ${join(repository, ".turnloop", "config.json")}`,
    );
    expect(existsSync(join(repository, "denied.txt"))).toBe(false);

    // /resume.
    const command = await cli([], { cwd: other, stdin: `/resume ${id}\n/permissions\n` });
    expect(command.code).toBe(0);
    expect(command.stdout).toContain(`resumed session ${id} in ${repository}`);
    const listed = command.stdout.slice(command.stdout.indexOf("rules from the config files"));
    expect(listed).toContain(
      `deny bash(touch *)  (from ${join(repository, ".turnloop", "config.json")})`,
    );
    expect(listed).not.toContain("bash(echo *)");
  });

  test("-p --resume: an invalid project file of the session's folder is a usage error naming it", async ({
    cli,
    model,
    repository,
  }) => {
    const id = await repositorySession({ cli, model, repository });
    const path = await projectConfig(repository, { permissions: { deny: ["bash("] } });
    const other = await otherFolder();
    const refused = await cli(["-p", "go", "--resume", id], { cwd: other });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`turnloop: the session's folder ${repository}: ${path}:`);
    expect(model.requests).toHaveLength(1);
  });

  test("the interactive --resume opens in the mode of the session's folder's trusted project file", async ({
    cli,
    model,
    repository,
  }) => {
    const id = await repositorySession({ cli, model, repository });
    await projectConfig(repository, { permissions: { mode: "auto" } });
    const trusted = await cli(["mcp", "trust"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    const other = await otherFolder();
    const resumed = await cli(["--resume", id], { cwd: other, stdin: "/mode\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^ {2}\* auto: /m);
    const here = await cli([], { cwd: other, stdin: "/mode\n" });
    expect(here.stdout).toMatch(/^ {2}\* ask: /m);
  });
});

// A fresh user's trial (round 3, session 16, #5): an invalid `.turnloop/config.json` in the folder
// turnloop was run in stopped `-p --resume` of another folder's session (exit 64), though that
// file does not apply to it. A face resuming a session by id reads the current folder's project
// files only for a session of that folder (src/cli/run.ts `configure`, session-runs.ts `in`).
describe("an invalid project file in the current folder and a session resumed by id", () => {
  async function invalidFolder(): Promise<{ folder: string; path: string }> {
    const folder = await mkdtemp(join(tmpdir(), "turnloop-invalid-"));
    folders.push(folder);
    await mkdir(join(folder, ".turnloop"));
    const path = join(folder, ".turnloop", "config.json");
    await writeFile(path, '{"permissions": {"deny": ["bash(echo *)"],}');
    return { folder, path };
  }

  test("-p --resume and the interactive --resume of another folder's session run, with its folder's rules; /new meets the file", async ({
    cli,
    model,
    repository,
  }) => {
    const id = await repositorySession({ cli, model, repository });
    const { folder, path: invalid } = await invalidFolder();
    runs(model, "touch denied.txt");
    const resumed = await cli(["-p", "go", "--allow-all-tools", "--resume", id], { cwd: folder });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `denied by the rule "bash(touch *)" in ${join(repository, ".turnloop", "config.json")}`,
    );
    expect(resumed.stderr).not.toContain(invalid);
    model.enqueue({ text: "again" });
    const interactive = await cli(["--resume", id], { cwd: folder, stdin: "go\n/new\n" });
    expect(interactive.code, interactive.stderr).toBe(0);
    expect(interactive.stdout).toContain("again");
    // A new session works in the current folder: its file applies, and it is still invalid.
    expect(`${interactive.stdout}${interactive.stderr}`).toContain(
      `${folder}/.turnloop/config.json is not valid JSON`,
    );
  });

  test("a session of the current folder, -p --continue and a new -p session still stop on the file", async ({
    cli,
    model,
  }) => {
    const { folder, path } = await invalidFolder();
    await rm(path);
    model.enqueue({ text: "first" });
    const first = await cli(["-p", "hi"], { cwd: folder });
    expect(first.code, first.stderr).toBe(0);
    const id = printedSessionId(first.stderr);
    await writeFile(path, '{"permissions": {"deny": ["bash(echo *)"],}');
    const invalid = `${path} is not valid JSON: line 1, column 43`;
    const resumed = await cli(["-p", "go", "--resume", id], { cwd: folder });
    expect(resumed.code).toBe(64);
    expect(resumed.stderr).toContain(`turnloop: the session's folder ${folder}: ${invalid}`);
    const continued = await cli(["-p", "go", "--continue"], { cwd: folder });
    expect(continued.code).toBe(64);
    expect(continued.stderr).toContain(`turnloop: ${invalid}`);
    const fresh = await cli(["-p", "go"], { cwd: folder });
    expect(fresh.code).toBe(64);
    expect(model.requests).toHaveLength(1);
  });
});

// A fresh user's trial (round 3, session 16, #7): `/new` after `/resume` of another folder's
// session opened the new session in that session's folder, with that session's model. It opens
// in the folder turnloop was started in, with the model new sessions get, and says so.
test("/new after /resume of another folder's session: the start folder, the model new sessions get", async ({
  cli,
  model,
  repository,
}) => {
  model.enqueue({ text: "first" });
  const first = await cli(["-p", "hi", "--model", "openai-compatible:other-model"]);
  expect(first.code, first.stderr).toBe(0);
  const id = printedSessionId(first.stderr);
  const other = await mkdtemp(join(tmpdir(), "turnloop-other-"));
  folders.push(other);
  model.enqueue({ text: "in the new one" });
  const run = await cli([], { cwd: other, stdin: `/resume ${id}\n/new\nhello\n` });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`resumed session ${id} in ${repository}`);
  expect(run.stdout).toMatch(
    new RegExp(
      `new session [0-9a-f-]{36} in ${other} \\(where turnloop was started\\), with openai-compatible:fake-model \\(the model new sessions get\\)`,
    ),
  );
  const newId = /new session ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? "";
  const listed = await cli(["sessions"], { cwd: other });
  expect(listed.stdout).toContain(newId);
  expect(model.requests.at(-1)?.body).toMatchObject({ model: "fake-model" });
});
