import { spawnSync } from "node:child_process";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// README, "Where sessions are kept": what `turnloop sessions` removes and what it leaves. The
// trial of session 22 found the listing removing more than README said (an empty folder, a
// `metadata.json` beside an empty log and no lock); README now lists what is removed, and this
// holds the command to that list, each folder as README names it.

/** A session folder under `home` holding `files` (a name ending in `/` is a folder). */
async function sessionFolder(
  home: string,
  sessionId: string,
  files: readonly string[],
  options: { old: boolean; lockPid?: number },
): Promise<void> {
  const folder = join(home, "session-state", sessionId);
  await mkdir(folder, { recursive: true });
  for (const name of files) {
    if (name.endsWith("/")) {
      await mkdir(join(folder, name));
    } else if (name === "lock") {
      const owner = { pid: options.lockPid, hostname: hostname(), command: "turnloop" };
      await writeFile(join(folder, name), JSON.stringify({ ...owner, acquiredAt: "x" }));
    } else if (name === "metadata.json") {
      await writeFile(join(folder, name), '{"size":120}');
    } else {
      await writeFile(join(folder, name), "");
    }
  }
  if (options.old) {
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(folder, minuteAgo, minuteAgo);
  }
}

test("turnloop sessions removes the folders without an event README names, and keeps the rest", async ({
  cli,
  home,
  model,
}) => {
  model.enqueue({ text: "Kept." });
  const saved = await cli(["-p", "a real session", "--output-format", "json"]);
  const realId = (JSON.parse(saved.stdout) as { session_id: string }).session_id;
  // The pid of a process that ran and ended: its lock is left behind.
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  const folders: Array<[string, readonly string[], { old: boolean; lockPid?: number }]> = [
    ["11111111-1111-4111-8111-111111111111", [], { old: true }],
    ["22222222-2222-4222-8222-222222222222", ["events.jsonl", "metadata.json"], { old: true }],
    [
      "33333333-3333-4333-8333-333333333333",
      ["lock", "events.jsonl"],
      { old: true, lockPid: dead },
    ],
    ["44444444-4444-4444-8444-444444444444", ["lock", "lock.break"], { old: true, lockPid: dead }],
    // Kept: a running process's lock, a folder under 5 s old, anything else in the folder.
    [
      "55555555-5555-4555-8555-555555555555",
      ["lock", "events.jsonl"],
      { old: true, lockPid: process.pid },
    ],
    ["66666666-6666-4666-8666-666666666666", ["events.jsonl"], { old: false }],
    ["77777777-7777-4777-8777-777777777777", ["events.jsonl", "tool-outputs/"], { old: true }],
    ["88888888-8888-4888-8888-888888888888", ["events.jsonl", "notes.txt"], { old: true }],
  ];
  for (const [sessionId, files, options] of folders) {
    await sessionFolder(home, sessionId, files, options);
  }
  const listed = await cli(["sessions"]);
  expect(listed.code).toBe(0);
  expect(listed.stdout.match(/^\S+(?= {2})/gm)).toEqual([realId]);
  expect((await readdir(join(home, "session-state"))).sort()).toEqual(
    [
      realId,
      "55555555-5555-4555-8555-555555555555",
      "66666666-6666-4666-8666-666666666666",
      "77777777-7777-4777-8777-777777777777",
      "88888888-8888-4888-8888-888888888888",
    ].sort(),
  );
});
