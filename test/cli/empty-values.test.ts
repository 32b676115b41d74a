import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// Session 19's brief, #3: `turnloop -p hi --resume ''` said "no session  in …", or, with one
// session stored, resumed that one: every id starts with "". A flag that names something (a
// session, a model, a folder, a file, a URL) given an empty or blank value, and a `sessions`
// command given an empty id, are usage errors (exit 64) that say what the flag needs, before
// anything is read or sent; the stored session is left as it was.

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const GOLDEN_ID = "f01d5e55-0000-4000-8000-000000000021";
const ID = "8a000000-0000-4000-8000-000000000001";

describe("an empty or blank value where something must be named", () => {
  test("flags: exit 64 saying what the flag needs, as typed", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const cases: [string[], string][] = [
      [
        ["-p", "hi", "--resume", ""],
        '--resume needs a session id (turnloop sessions lists them), not ""',
      ],
      [
        ["-p", "hi", "--resume", " "],
        '--resume needs a session id (turnloop sessions lists them), not " "',
      ],
      [
        ["-p", "hi", "--resume="],
        '--resume needs a session id (turnloop sessions lists them), not ""',
      ],
      [["--resume", ""], '--resume needs a session id (turnloop sessions lists them), not ""'],
      [
        ["-p", "hi", "-m", ""],
        '-m needs a model as <provider>:<model> (e.g. openai:gpt-5), not ""',
      ],
      [
        ["-p", "hi", "--model= "],
        '--model needs a model as <provider>:<model> (e.g. openai:gpt-5), not " "',
      ],
      [["-p", "hi", "--base-url", ""], '--base-url needs an http:// or https:// URL, not ""'],
      [["-p", "hi", "--cwd", ""], '--cwd needs a folder, not ""'],
      [["-p", "hi", "--cwd", "  "], '--cwd needs a folder, not "  "'],
      [["-p", "hi", "--add-dir", ""], '--add-dir needs a folder, not ""'],
      [["-p", "hi", "--mcp-config", ""], '--mcp-config needs a file, not ""'],
      [["-p", "hi", "--system-prompt-file", ""], '--system-prompt-file needs a file, not ""'],
      [["-p", "hi", "--store", ""], '--store needs a postgres:// or postgresql:// URL, not ""'],
      [["--headless", "--port", "0", "--host", ""], '--host needs an address to listen on, not ""'],
      [["sessions", "view", "x", "--out", ""], '--out needs a file, not ""'],
    ];
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      cases.map(([args, stderr]) => ({ args, stderr })),
    );
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("a sessions command's id: exit 64, and the one stored session is untouched", async ({
    cli,
    environment,
    home,
    repository,
    model,
  }) => {
    // One session: an empty prefix would name it.
    const golden = await readFile(GOLDEN, "utf8");
    await mkdir(join(home, "session-state", ID), { recursive: true });
    const log = golden.replace(GOLDEN_ID, ID).replace('"<cwd>"', JSON.stringify(repository));
    const file = join(home, "session-state", ID, "events.jsonl");
    await writeFile(file, log);
    const cases: [string[], string][] = [
      [
        ["sessions", "delete", ""],
        'sessions delete needs a session id, not "" (usage: turnloop sessions delete <id>)',
      ],
      [
        ["sessions", "delete", " "],
        'sessions delete needs a session id, not " " (usage: turnloop sessions delete <id>)',
      ],
      [
        ["sessions", "show", ""],
        'sessions show needs a session id, not "" (usage: turnloop sessions show <id>)',
      ],
      [
        ["sessions", "compact", ""],
        'sessions compact needs a session id, not "" (usage: turnloop sessions compact <id> [instructions] [session options])',
      ],
      [
        ["sessions", "import", ""],
        'sessions import needs a file (or - for stdin), not "" (usage: turnloop sessions import <file | ->)',
      ],
    ];
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      cases.map(([args, stderr]) => ({ args, stderr })),
    );
    expect(actual).toEqual(expected);
    expect(await readFile(file, "utf8")).toBe(log);
    expect(model.requests).toHaveLength(0);
  });
});
