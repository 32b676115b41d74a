import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import { firstSession, refusal, unsavedResult, withoutTime } from "../support/storage-refusals.js";

describe.runIf(CAN_MOUNT)(needingMount("a full disk (a 1 MiB tmpfs, filled)"), () => {
  const disk = useFullDisk();

  test("-p stops before the model is asked, names the file and errno, reports no session; a freed disk saves the next", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    const result = await cli(["-p", "hi"], { env });
    const [sessionId] = await readdir(join(home, "session-state"));
    expect(sessionId).toBeUndefined();
    expect(model.requests).toHaveLength(0);
    expect({ ...result, stderr: withoutTime(result.stderr) }).toEqual({
      code: 1,
      signal: null,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(
          `^${refusal(home, "lock")}\\n0 turns · tokens not reported · <time> · session not saved\\n$`,
        ),
      ),
    });

    await disk.free();
    model.enqueue({ text: "Saved." });
    const saved = await cli(["-p", "hi"], { env });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toBe("Saved.\n");
    expect(await readdir(join(home, "session-state"))).toHaveLength(1);
  });
});

describe.runIf(CAN_MOUNT)(needingMount("a disk that fills up after a session was saved"), () => {
  const disk = useFullDisk(1024, false);

  test("--resume and --continue exit 1 naming the lock file, and leave the log as it was", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    const { sessionId, folder } = await firstSession(cli, model, home, env);
    const path = join(folder, "events.jsonl");
    const log = await readFile(path, "utf8");
    await disk.fill();

    const problem =
      `turnloop: ${home}/session-state/${sessionId}/lock could not be written ` +
      "(ENOSPC: no space left on device, write)\n";
    for (const args of [["--resume", sessionId], ["--continue"]]) {
      const result = await cli(["-p", "again", ...args], { env });
      expect(result).toEqual({ code: 1, signal: null, stdout: "", stderr: problem });
    }
    expect(model.requests).toHaveLength(1);
    expect(await readFile(path, "utf8")).toBe(log);
  });

  // A fresh user's check: a command filled the disk mid-prompt; -p printed the answer and its
  // summary, then exited 1 with nothing said.
  test("a disk filled during the prompt: -p exits 1 and says what could not be written", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    const command = `head -c 4000000 /dev/zero > ${join(home, "..", "filler")} 2>/dev/null; echo filled`;
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "Done." },
    );
    const result = await cli(["-p", "fill it", "--allow-all-tools"], { env });
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    expect({
      ...result,
      stderr: result.stderr
        .replace(/^✓ bash head .*\n/, "✓ bash COMMAND\n")
        .replace(/· [\d.]+ s ·/, "· T ·"),
    }).toEqual({
      code: 1,
      signal: null,
      stdout: "Done.\n",
      stderr:
        "✓ bash COMMAND\n" +
        // The log's lines fit in its last 4 KiB block; the listing metadata, a new file, does not.
        `turnloop: ${home}/session-state/${sessionId}/metadata.json could not be written ` +
        "(ENOSPC: no space left on device, write): the prompt was stopped; every event written " +
        "before is kept\n" +
        `2 turns · 20 in / 10 out tokens · T · session ${sessionId}\n`,
    });
  });
});

describe.runIf(CAN_MOUNT)(
  needingMount("a command whose full output does not fit on the disk (a 1 MiB tmpfs)"),
  () => {
    const disk = useFullDisk(1024, false);

    test("the partial copy is removed, the result names it and the error, and the prompt ends", async ({
      cli,
      model,
    }) => {
      const { home, env } = disk;
      const command = "head -c 5000000 /dev/zero | tr '\\0' a";
      model.enqueue(
        { toolCalls: [{ id: "call_big", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "Done." },
      );
      const result = await cli(["-p", "print a lot", "--allow-all-tools"], { env });
      expect([result.code, result.stdout], result.stderr).toEqual([0, "Done.\n"]);
      const [sessionId = ""] = await readdir(join(home, "session-state"));
      const copy = join(home, "session-state", sessionId, "tool-outputs", "call_big.txt");
      expect(await readdir(dirname(copy))).toEqual([]);
      const toolResult = chatMessages(model, -1).find((message) => message.role === "tool");
      expect(String(toolResult?.content)).toContain(
        `bytes) omitted; the full output could not be saved to ${copy} (ENOSPC: no space left on ` +
          "device, write); the partial copy was removed]",
      );
    });
  },
);

test("-p with a database that refuses connections stops before the model is asked, naming it without its password", async ({
  cli,
  model,
}) => {
  const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
  const result = await cli(["-p", "hi"], { env: { TURNLOOP_DATABASE_URL: url } });
  expect(model.requests).toHaveLength(0);
  expect({ ...result, stderr: withoutTime(result.stderr) }).toEqual({
    code: 1,
    signal: null,
    stdout: "",
    stderr:
      "turnloop: could not connect to the session store postgres://someone:***@127.0.0.1:1/turnloop " +
      "(connect ECONNREFUSED 127.0.0.1:1): the prompt was stopped; the session was not saved\n" +
      "0 turns · tokens not reported · <time> · session not saved\n",
  });
});

// Trial r3s44 (pgfix): `-p --resume` with a database refusing connections printed a stack trace.
test("-p --resume with a database that refuses connections: exit 1, the database's reason, no stack", async ({
  cli,
  model,
}) => {
  const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
  const result = await cli(["-p", "hi", "--resume", "abc"], {
    env: { TURNLOOP_DATABASE_URL: url },
  });
  expect(model.requests).toHaveLength(0);
  expect(result).toEqual({
    code: 1,
    signal: null,
    stdout: "",
    stderr:
      "turnloop: postgres://someone:***@127.0.0.1:1/turnloop: connect ECONNREFUSED 127.0.0.1:1\n",
  });
});

// A fresh user's check: the JSON result named a session_id although nothing was saved, so a
// script's `--resume` of it found no session. It is null, with the error.
test("-p --output-format json with a database that refuses connections: session_id null and the error", async ({
  cli,
  model,
}) => {
  const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
  const result = await cli(["-p", "hi", "--output-format", "json"], {
    env: { TURNLOOP_DATABASE_URL: url },
  });
  expect(model.requests).toHaveLength(0);
  expect(result.code).toBe(1);
  const printed: unknown = JSON.parse(result.stdout);
  // stderr says what --quiet's does: the error, once (README, "JSON output").
  const { message } = (printed as { error: { message: string } }).error;
  expect(result.stderr).toBe(`turnloop: ${message}\n`);
  expect({ ...(printed as object), duration_ms: 0 }).toEqual(
    unsavedResult(
      "could not connect to the session store postgres://someone:***@127.0.0.1:1/turnloop " +
        "(connect ECONNREFUSED 127.0.0.1:1): the prompt was stopped; the session was not saved",
    ),
  );
});

// Last session's check: stream-json announced a session (`session.start` with an id) that was
// never stored, then its result said `session_id: null`. Nothing but the result is printed.
test("-p --output-format stream-json with a database that refuses connections: the result line alone", async ({
  cli,
  model,
}) => {
  const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
  const result = await cli(["-p", "hi", "--output-format", "stream-json"], {
    env: { TURNLOOP_DATABASE_URL: url },
  });
  expect(model.requests).toHaveLength(0);
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  // stderr says what --quiet's does: the error, once (README, "JSON output").
  const { message } = (JSON.parse(lines[0] ?? "") as { error: { message: string } }).error;
  expect([result.code, result.stderr]).toEqual([1, `turnloop: ${message}\n`]);
  expect(JSON.parse(lines[0] ?? "")).toMatchObject({
    type: "result",
    session_id: null,
    error: { type: "storage", message: expect.stringContaining("ECONNREFUSED") },
  });
});

// A fresh user's check: the interactive face said the storage failure, then ended with "no
// prompt was sent", which contradicted it. Its last line now says what happened.
test("the piped interactive face with a database that refuses connections ends saying storage refused the prompt", async ({
  cli,
  model,
}) => {
  const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
  const result = await cli([], { env: { TURNLOOP_DATABASE_URL: url }, stdin: "hi\n" });
  expect(model.requests).toHaveLength(0);
  // Storage refused the session: the piped run fails, as -p does (late-storage-errors.test.ts).
  expect(result.code).toBe(1);
  expect(result.stdout.split("\n").slice(2)).toEqual([
    "> turnloop: could not connect to the session store postgres://someone:***@127.0.0.1:1/turnloop " +
      "(connect ECONNREFUSED 127.0.0.1:1): the prompt was stopped; the session is not saved yet: the " +
      "next prompt that storage accepts saves it, this one included",
    "> ",
    "the session was not saved: storage refused the prompt (the error above)",
    "",
  ]);
});
