import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A session id or prefix the user typed that names no session, or more than one, is a usage
// error: exit 64 and the same message from every command that takes one (README, exit codes).

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const GOLDEN_ID = "f01d5e55-0000-4000-8000-000000000021";
const IDS = ["8a000000-0000-4000-8000-000000000001", "8b000000-0000-4000-8000-000000000002"];

/** Every command that takes a session id or prefix, with that argument `prefix`. */
function commandsTaking(prefix: string): string[][] {
  return [
    ["sessions", "show", prefix],
    ["sessions", "delete", prefix],
    ["sessions", "view", prefix, "--no-open"],
    ["sessions", "export", prefix, "--format", "markdown"],
    ["sessions", "export", prefix, "--format", "jsonl"],
    ["sessions", "compact", prefix],
    ["-p", "hi", "--resume", prefix],
    // The interactive face (plain lines: stdin is not a terminal).
    ["--resume", prefix],
  ];
}

test("an unknown or ambiguous session prefix: exit 64 and one wording, for every command taking one", async ({
  cli,
  home,
  repository,
  model,
}) => {
  const golden = await readFile(GOLDEN, "utf8");
  for (const id of IDS) {
    await mkdir(join(home, "session-state", id), { recursive: true });
    const log = golden.replace(GOLDEN_ID, id).replace('"<cwd>"', JSON.stringify(repository));
    await writeFile(join(home, "session-state", id, "events.jsonl"), log);
  }
  const runs = [];
  for (const prefix of ["8", "0zz"]) {
    for (const args of commandsTaking(prefix)) {
      const { code, stdout, stderr } = await cli(args);
      runs.push({ args: args.join(" "), code, stdout, stderr });
    }
  }
  const ambiguous = `turnloop: 8 matches 2 sessions (${IDS.join(", ")}); give more of the id\n`;
  const unknown = `turnloop: no session 0zz in ${home} (turnloop sessions lists them)\n`;
  expect(runs).toEqual(
    ["8", "0zz"].flatMap((prefix) =>
      commandsTaking(prefix).map((args) => ({
        args: args.join(" "),
        code: 64,
        stdout: "",
        stderr: prefix === "8" ? ambiguous : unknown,
      })),
    ),
  );
  // Nothing was sent to the model, and both sessions are still there.
  expect(model.requests).toHaveLength(0);
  expect((await cli(["sessions"])).stdout).toContain(IDS[1]);
});

// A fresh user's trial (round 3, session 16, #12): `-p --resume "SAY hello there"` (the prompt
// where the id goes) said stdin was empty, or with a pipe that there was no such session. An id
// has no spaces: the value is refused as a prompt before stdin is read.
test("-p --resume with a prompt for its id: the usage error says where the prompt goes, with or without a pipe", async ({
  cli,
  model,
}) => {
  const said =
    'turnloop: no session "SAY hello there": --resume takes a session id; the prompt goes after -p (turnloop -p "…" --resume <id>)\n';
  const closed = await cli(["-p", "--resume", "SAY hello there"]);
  expect([closed.code, closed.stderr]).toEqual([64, said]);
  const piped = await cli(["-p", "--resume", "SAY hello there"], { stdin: "SAY piped\n" });
  expect([piped.code, piped.stderr]).toEqual([64, said]);
  expect(model.requests).toHaveLength(0);
});

// A trial of session 17's build (round 3, session 18, #4): `-p --resume fixbug` (one word: a
// prompt, or an id that names no session) said stdin was empty; `-p "x" --resume` (no id) said
// only "-p needs --resume <session-id>". The id is checked before stdin is read.
test("-p --resume with one word that names no session, and -p --resume with no id: said so, with how to list the sessions", async ({
  cli,
  home,
  model,
}) => {
  const said = `turnloop: no session fixbug in ${home} (turnloop sessions lists them)\n`;
  const closed = await cli(["-p", "--resume", "fixbug"]);
  expect([closed.code, closed.stderr]).toEqual([64, said]);
  const piped = await cli(["-p", "--resume", "fixbug"], { stdin: "the prompt\n" });
  expect([piped.code, piped.stderr]).toEqual([64, said]);
  const noId = await cli(["-p", "x", "--resume"]);
  expect([noId.code, noId.stderr]).toEqual([
    64,
    'turnloop: -p --resume needs a session id (turnloop sessions lists them): turnloop -p "…" --resume <id>; the picker of sessions is the interactive turnloop --resume\n',
  ]);
  expect(model.requests).toHaveLength(0);
});
