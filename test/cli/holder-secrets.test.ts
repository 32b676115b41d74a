import { readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

// The session-36 trial (P4-3): the command line recorded with a session's lock (and quoted in the
// refusal another process gets) hid a --store password but showed a --base-url's password and a
// `?token=` whole. Every secret a process's arguments hold goes through the one redaction
// (llm/shown-values.ts): in the lock file, in the refusals, and in a model request's failure.

/** `http://user:pw36@<the fake model's host>/v1`: a base URL whose password is a secret. */
const baseUrlOf = (modelUrl: string) => modelUrl.replace("http://", "http://user:pw36@");

describe("secrets in the command line a session's holder records", () => {
  test("a -p holding a session: its lock file and another process's refusal show the base URL's password and the prompt's token as ***", async ({
    cli,
    model,
    home,
  }) => {
    const released = gate();
    const streaming = gate();
    model.enqueue({ text: ["held", " reply"], pause: { afterEvents: 1, until: released.opened } });
    let holderPid: number | undefined;
    const prompt = "hold it; the docs: http://docs.internal/page?token=tok36";
    const holder = cli(
      ["--base-url", `${baseUrlOf(model.url)}/v1`, "-p", prompt, "--output-format", "stream-json"],
      {
        onStart: (child) => {
          holderPid = child.pid;
          child.stdout?.on("data", (chunk: Buffer) => {
            // The gate: the holder's reply is streaming, so it holds the session.
            if (chunk.toString("utf8").includes('"assistant.turn_start"')) {
              streaming.open();
            }
          });
        },
      },
    );
    await streaming.opened;
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    const lock = JSON.parse(
      await readFile(join(home, "session-state", sessionId, "lock"), "utf8"),
    ) as { command: string; acquiredAt: string };
    const shownUrl = `${model.url.replace("http://", "http://user:***@")}/v1`;
    const command = `turnloop --base-url ${shownUrl} -p hold it; the docs: http://docs.internal/page?token=*** --output-format stream-json`;
    expect(lock.command).toBe(command);

    const refused = await cli(["-p", "x", "--resume", sessionId]);
    released.open();
    expect((await holder).code).toBe(0);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      1,
      "",
      `turnloop: Session ${sessionId} is open in another process (pid ${holderPid}, running: ${command}, since ${lock.acquiredAt}); close it there first.\n`,
    ]);
  });

  test("a lock an older turnloop wrote with secrets in it is quoted without them", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue({ text: "first" });
    const first = await cli(["-p", "start"]);
    expect(first.code).toBe(0);
    const sessionId = printedSessionId(first.stderr);
    // Held by this test's own process (alive, on this machine), as an older turnloop wrote it.
    const acquiredAt = "2026-01-01T00:00:00.000Z";
    const written = {
      pid: process.pid,
      hostname: hostname(),
      command:
        "turnloop --base-url http://user:pw36@10.0.0.1/v1 --store postgres://turnloop:hunter2@db/turnloop -p key sk-live0123456789abcdefghij",
      acquiredAt,
    };
    await writeFile(join(home, "session-state", sessionId, "lock"), JSON.stringify(written));

    const refused = await cli(["-p", "x", "--resume", sessionId]);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      1,
      "",
      `turnloop: Session ${sessionId} is open in another process (pid ${process.pid}, running: turnloop --base-url http://user:***@10.0.0.1/v1 --store postgres://turnloop:***@db/turnloop -p key sk-live01…[redacted], since ${acquiredAt}); close it there first.\n`,
    ]);
  });

  test("a model request's failure names the base URL without its password, on stderr and in the log", async ({
    cli,
    home,
  }) => {
    const result = await cli(["--base-url", "http://user:pw36@127.0.0.1:6000/v1", "-p", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toBe(
      "turnloop: the base URL cannot be used (http://user:***@127.0.0.1:6000/v1/chat/completions): bad port",
    );
    const sessionId = printedSessionId(result.stderr);
    const log = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
    const errors = log
      .split("\n")
      .filter((line) => line.includes('"session.error"'))
      .map((line) => (JSON.parse(line) as { data: { message: string } }).data.message);
    expect(errors).toEqual([
      "the base URL cannot be used (http://user:***@127.0.0.1:6000/v1/chat/completions): bad port",
    ]);
    expect(log).not.toContain("pw36");
  });
});
