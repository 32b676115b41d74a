/**
 * A fresh user's check: a disk that fills after a new session's lock is written. The session's
 * first write (lock, folder, log, first events, their commit) is all or nothing
 * (session/deferred-appender.ts): whichever part fails, every face says the same (the file and
 * the error, no stack; json's `session_id` null; the interactive face's "not saved" line), and
 * nothing is left in the store. Before, `-p` named `<home> (not saved until the first prompt)`,
 * printed the session id and a raw stack, and left the lock and an empty `events.jsonl`.
 *
 * The free space is exact (`FullDisk.leave`): a tmpfs gives each small file one 4 KiB block, so
 * one block holds the lock (about 100 bytes) and nothing more. The code cache is off: its writes
 * would take blocks first.
 */

import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { AcpChild } from "../acp/child-process.js";
import { spawnServer } from "../server/raw-peer.js";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import { type InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import { refusal, unsavedResult, withoutTime } from "../support/storage-refusals.js";
import { type InteractiveFixture, interactiveTest } from "./interactive-support.js";

/** The code cache is off: its writes would take the disk's few blocks first. */
const NO_CODE_CACHE = { TURNLOOP_NO_CODE_CACHE: "1" };

/** What the interactive face says of a session its first prompt did not save. */
const NOT_SAVED_YET =
  "the session is not saved yet: the next prompt that storage accepts saves it, this one included";

/** A stream-json line: an event, or the result. */
interface Line {
  type: string;
  data?: { sessionId?: string };
  session_id?: string | null;
}

describe.runIf(CAN_MOUNT)(needingMount("a disk that fills after the lock is written"), () => {
  const disk = useFullDisk(64, false, NO_CODE_CACHE);

  // One block left holds the lock; two hold the log too, and the first commit's metadata fails.
  test.for([
    [
      1,
      "events.jsonl",
      "-p: the events file and its error, no stack, no session, nothing left behind",
    ],
    [2, "metadata.json", "-p: the first commit's metadata refused (the log fitted): the same end"],
  ] as const)("%s %s: %s", async ([blocks, file], { cli, model }) => {
    await disk.leave(blocks);
    const result = await cli(["-p", "hi"], { env: disk.env });
    expect(model.requests).toHaveLength(0);
    expect({ ...result, stderr: withoutTime(result.stderr) }).toEqual({
      code: 1,
      signal: null,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(
          `^${refusal(disk.home, file)}\\n` +
            "0 turns · tokens not reported · <time> · session not saved\\n$",
        ),
      ),
    });
    expect(await readdir(join(disk.home, "session-state"))).toEqual([]);
  });

  test("-p --output-format json: session_id null and the error; a freed disk saves the next", async ({
    cli,
    model,
  }) => {
    await disk.leave(1);
    const result = await cli(["-p", "hi", "--output-format", "json"], { env: disk.env });
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    // stderr says what --quiet's does: the error, once (README, "JSON output").
    const { message } = printed.error as { message: string };
    expect([result.code, result.stderr]).toEqual([1, `turnloop: ${message}\n`]);
    expect({ ...printed, duration_ms: 0 }).toEqual(
      unsavedResult(
        expect.stringMatching(
          new RegExp(`^${refusal(disk.home, "events.jsonl").slice("turnloop: ".length)}$`),
        ),
      ),
    );
    expect(await readdir(join(disk.home, "session-state"))).toEqual([]);

    await disk.free();
    model.enqueue({ text: "Saved." });
    const saved = await cli(["-p", "hi"], { env: disk.env });
    expect([saved.code, saved.stdout]).toEqual([0, "Saved.\n"]);
    expect(await readdir(join(disk.home, "session-state"))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });

  // Last session's check: stream-json printed a `session.start` with an id, then the result said
  // `session_id: null`. No event line is printed until the session is stored.
  test("-p --output-format stream-json: only the result line when unsaved; a saved one starts with its id", async ({
    cli,
    model,
  }) => {
    await disk.leave(1);
    const result = await cli(["-p", "hi", "--output-format", "stream-json"], { env: disk.env });
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    expect(lines.map((line) => [line.type, line.session_id])).toEqual([["result", null]]);
    // stderr says what --quiet's does: the error, once (README, "JSON output").
    const { message } = (lines[0] as unknown as { error: { message: string } }).error;
    expect([result.code, result.stderr]).toEqual([1, `turnloop: ${message}\n`]);
    expect(await readdir(join(disk.home, "session-state"))).toEqual([]);

    await disk.free();
    model.enqueue({ text: "Saved." });
    const saved = await cli(["-p", "hi", "--output-format", "stream-json"], { env: disk.env });
    expect(saved.code).toBe(0);
    const events = saved.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    const id = events[0]?.data?.sessionId;
    expect([events[0]?.type, events.at(-1)?.session_id]).toEqual(["session.start", id]);
    expect(await readdir(join(disk.home, "session-state"))).toEqual([id]);
  });

  // The server's session.create is the same first write; its error named no file (the bare
  // ENOSPC), as ACP's did.
  test("--headless session.create: an error naming the file, nothing left behind", async ({
    environment,
    repository,
  }) => {
    const { child, peer, exit } = spawnServer(["--stdio"], environment(disk.env), repository);
    try {
      await peer.request("connect", {});
      await disk.leave(1);
      const created = await peer.request("session.create", {});
      expect(created.error).toEqual({
        code: -32603,
        message: expect.stringMatching(
          /^session\.create failed: \/\S+\/session-state\/[0-9a-f-]{36}\/events\.jsonl could not be written \(ENOSPC: no space left on device, write\)/,
        ),
      });
      expect(await readdir(join(disk.home, "session-state"))).toEqual([]);
      expect(peer.garbage).toBe("");
    } finally {
      child.stdin.end();
      await exit;
    }
  });

  // A fresh user's check: a reopening the store refused (the session's `session.resume` and its
  // metadata on a full disk) kept the session's lock: `-p --resume` left it on disk, and a failed
  // ACP `session/load` kept the session held by the agent itself, so no load could follow.
  test("a refused reopening lets the session go: -p --resume leaves no lock; ACP loads it again", async ({
    cli,
    model,
    environment,
    repository,
  }) => {
    model.enqueue({ text: "Saved." });
    const saved = await cli(["-p", "hi", "--output-format", "json"], { env: disk.env });
    const sessionId = (JSON.parse(saved.stdout) as { session_id: string }).session_id;
    const folder = join(disk.home, "session-state", sessionId);
    await disk.leave(1);
    const resumed = await cli(["-p", "again", "--resume", sessionId], { env: disk.env });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/could not be written \(ENOSPC: no space left on device/);
    expect(model.requests).toHaveLength(1);
    expect((await readdir(folder)).filter((name) => name.startsWith("lock"))).toEqual([]);
    // --output-format json: the one result object, naming the session that is still there.
    const json = await cli(["-p", "again", "--resume", sessionId, "--output-format", "json"], {
      env: disk.env,
    });
    // The error on stderr in every output format (README, "JSON output"; trial 41 F7).
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(
      /^turnloop: \S+\/metadata\.json could not be written \(ENOSPC: no space left on device, write\)\n$/,
    );
    expect(JSON.parse(json.stdout)).toEqual({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      result: "",
      stop_reason: null,
      session_id: sessionId,
      num_turns: 0,
      duration_ms: 0,
      usage: {},
      permission_denials: [],
      left_running_pids: [],
      error: {
        type: "storage",
        message: expect.stringMatching(
          new RegExp(
            `^${folder}/(lock|events\\.jsonl|metadata\\.json) could not be written \\(ENOSPC`,
          ),
        ),
      },
    });

    const agent = new AcpChild(environment(disk.env), repository);
    try {
      await agent.initialize();
      await expect(agent.loadSession(sessionId)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          new RegExp(
            `^Could not open session ${sessionId}: ${folder}/(lock|events\\.jsonl|metadata\\.json) could not be written \\(ENOSPC`,
          ),
        ),
      });
      expect((await readdir(folder)).filter((name) => name.startsWith("lock"))).toEqual([]);
      await disk.free();
      await expect(agent.loadSession(sessionId)).resolves.toBeDefined();
    } finally {
      await agent.kill();
    }
  });

  // ACP creates the session at session/new (not at the first prompt): its session.start is the
  // first write, which left the lock (held by the live agent) and an empty log.
  test("acp session/new: an error, nothing left behind, and the agent serves on", async ({
    environment,
    repository,
  }) => {
    await disk.leave(1);
    const agent = new AcpChild(environment(disk.env), repository);
    try {
      await agent.initialize();
      await expect(agent.newSession()).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^\/\S+\/session-state\/[0-9a-f-]{36}\/events\.jsonl could not be written \(ENOSPC: no space left on device, write\): the session was not created$/,
        ),
      });
      expect(await readdir(join(disk.home, "session-state"))).toEqual([]);
      await disk.free();
      expect(await agent.newSession()).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await agent.kill();
    }
  });
});

describe.runIf(CAN_MOUNT && !tmuxMissing())(
  needingMount("the interactive face on a disk that fills after the lock is written"),
  () => {
    const disk = useFullDisk(64, false, NO_CODE_CACHE);

    /** The interactive face on the disk, its first prompt ("Say hello") refused, idle again. */
    async function firstPromptRefused(fixture: InteractiveFixture): Promise<InteractiveTerminal> {
      const terminal = await fixture.openReady([], { env: disk.env, columns: 400 });
      // One block for the input history's first line, one for the lock.
      await disk.leave(2);
      terminal.type("Say hello");
      await terminal.waitFor(/the prompt was stopped/);
      await terminal.idle();
      return terminal;
    }

    interactiveTest(
      "the events file and its error, then 'not saved', no 'resume it with', nothing left",
      async ({ fixture }) => {
        const { home } = disk;
        const terminal = await firstPromptRefused(fixture);
        terminal.key("C-d");
        const { code } = await terminal.exited();
        expect(code).toBe(0);
        const screen = await terminal.screen(200);
        expect(screen).toMatch(
          new RegExp(refusal(home, "events.jsonl", NOT_SAVED_YET).slice("turnloop: ".length)),
        );
        expect(screen).toContain(
          "the session was not saved: storage refused the prompt (the error above)",
        );
        expect(screen).not.toContain("resume it with");
        expect(screen).not.toContain("    at ");
        expect(fixture.server.requests).toHaveLength(0);
        expect(await readdir(join(home, "session-state"))).toEqual([]);
      },
    );

    // The last session's note: the first prompt was said "not saved", then saved after all with
    // the second one (its events are kept: the model's history holds them). What is said now
    // is what happens.
    interactiveTest(
      "a refused first prompt is said to be saved with the next one, and is, when that one goes through",
      async ({ fixture }) => {
        const { home } = disk;
        const terminal = await firstPromptRefused(fixture);
        expect(await terminal.screen(200)).toContain(`the prompt was stopped; ${NOT_SAVED_YET}`);
        expect(await terminal.screen(200)).not.toContain("the session was not saved");
        await disk.free();
        fixture.server.enqueue({ text: "Hello again." });
        terminal.type("Say it again");
        await terminal.waitFor(/Hello again\./);
        await terminal.idle();
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
        const [sessionId] = await readdir(join(home, "session-state"));
        const events = (
          await readFile(join(home, "session-state", String(sessionId), "events.jsonl"), "utf8")
        )
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { type: string; data: { content?: string } });
        expect(
          events.filter((event) => event.type === "user.message").map((e) => e.data.content),
        ).toEqual(["Say hello", "Say it again"]);
        expect(await terminal.screen(200)).not.toContain("the session was not saved");
      },
    );
  },
);

// What an earlier version left after such a failure (or a kill between the lock and the first
// event): a folder holding the lock of a process now gone and an empty events.jsonl.
test("turnloop sessions removes a folder holding only a dead process's lock and an empty log", async ({
  cli,
  home,
}) => {
  const sessionId = "77777777-7777-4777-8777-777777777777";
  const folder = join(home, "session-state", sessionId);
  await mkdir(folder, { recursive: true });
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  const owner = { pid: dead, hostname: hostname(), command: "turnloop -p hi", acquiredAt: "" };
  await writeFile(join(folder, "lock"), `${JSON.stringify(owner)}\n`);
  await writeFile(join(folder, "events.jsonl"), "");
  // Past the grace a slow creator is given (store.ts, 5 s).
  const minuteAgo = new Date(Date.now() - 60_000);
  await utimes(folder, minuteAgo, minuteAgo);
  const listed = await cli(["sessions"]);
  expect(listed).toEqual({
    code: 0,
    signal: null,
    stdout: `No sessions in ${home}.\n`,
    stderr: "",
  });
  expect(await readdir(join(home, "session-state"))).toEqual([]);
});
