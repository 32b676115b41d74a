import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Session 19's brief, #4: `turnloop sessions compact <id>` exited 1 when there was nothing to
// compact or the session's folder was gone, and a refused compaction still appended
// `session.resume` and the compaction's events; a `-p --resume`/`--continue` refused because
// the session's model does not resolve here appended `session.resume` too. A refusal known
// before the session is reopened is a usage error (exit 64, README's exit codes) and writes
// nothing: the model and the history are checked before anything is written (host.ts `open`).

/** The fixture's endpoint taken away: the session's model (and the configured one) cannot run. */
const NO_ENDPOINT = { TURNLOOP_BASE_URL: undefined };

describe("a compaction or resume refused before the session is reopened writes nothing", () => {
  test("sessions compact with nothing to compact: exit 64, said, the log unchanged", async ({
    cli,
    home,
    model,
  }) => {
    model.enqueue({ text: "only" });
    const first = await cli(["-p", "one prompt"]);
    const id = printedSessionId(first.stderr);
    const log = join(home, "session-state", id, "events.jsonl");
    const before = await readFile(log, "utf8");
    const refused = await cli(["sessions", "compact", id]);
    expect(refused).toMatchObject({
      code: 64,
      stdout: "",
      stderr: "turnloop: nothing to compact: the conversation is only its most recent turn\n",
    });
    expect(await readFile(log, "utf8")).toBe(before);
    expect(model.requests).toHaveLength(1);
  });

  // A session an editor (ACP session/new) or an app (session.create) stored before any prompt
  // was said to be "only its most recent turn": there is no conversation at all.
  test("sessions compact of a session with no prompt yet: exit 64, said so, the log unchanged", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    const id = randomUUID();
    const folder = join(home, "session-state", id);
    await mkdir(folder, { recursive: true });
    const log = join(folder, "events.jsonl");
    const start = {
      type: "session.start",
      data: {
        sessionId: id,
        version: 1,
        producer: "turnloop",
        producerVersion: "0.1.0",
        startTime: "2026-12-04T19:57:04.090Z",
        cwd: repository,
        model: "openai-compatible:fake-model",
      },
      id: randomUUID(),
      timestamp: "2026-12-04T19:57:04.091Z",
      parentId: null,
    };
    await writeFile(log, `${JSON.stringify(start)}\n`);
    const refused = await cli(["sessions", "compact", id]);
    expect(refused).toMatchObject({
      code: 64,
      stdout: "",
      stderr: "turnloop: nothing to compact: there is no conversation yet\n",
    });
    expect(await readFile(log, "utf8")).toBe(`${JSON.stringify(start)}\n`);
    expect(model.requests).toHaveLength(0);
  });

  test("sessions compact, -p --resume and -p --continue whose model does not resolve here: exit 64, the log unchanged", async ({
    cli,
    home,
    model,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" });
    const first = await cli(["-p", "first"]);
    const id = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", id]);
    const log = join(home, "session-state", id, "events.jsonl");
    const before = await readFile(log, "utf8");
    const said =
      "turnloop: openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set --base-url or TURNLOOP_BASE_URL.\n";
    const runs = [];
    for (const args of [
      ["sessions", "compact", id],
      ["-p", "third", "--resume", id],
      ["-p", "third", "--continue"],
    ]) {
      const { code, stdout, stderr } = await cli(args, { env: NO_ENDPOINT });
      runs.push({ args, code, stdout, stderr });
    }
    expect(runs).toEqual(
      [
        ["sessions", "compact", id],
        ["-p", "third", "--resume", id],
        ["-p", "third", "--continue"],
      ].map((args) => ({ args, code: 64, stdout: "", stderr: said })),
    );
    expect(await readFile(log, "utf8")).toBe(before);
    expect(model.requests).toHaveLength(2);
  });

  test("sessions compact of a session whose folder is gone: exit 64 naming the folder, the log unchanged", async ({
    cli,
    home,
    model,
  }) => {
    const folder = await mkdtemp(join(tmpdir(), "turnloop-compact-gone-"));
    model.enqueue({ text: "one" }, { text: "two" });
    const first = await cli(["-p", "first"], { cwd: folder });
    const id = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", id], { cwd: folder });
    await rm(folder, { recursive: true });
    const log = join(home, "session-state", id, "events.jsonl");
    const before = await readFile(log, "utf8");
    const refused = await cli(["sessions", "compact", id]);
    expect(refused).toMatchObject({
      code: 64,
      stdout: "",
      stderr: `turnloop: session ${id} works in ${folder}, which is not an existing directory here; create or restore it to resume the session\n`,
    });
    expect(await readFile(log, "utf8")).toBe(before);
    expect(model.requests).toHaveLength(2);
  });
});
