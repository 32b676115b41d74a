/**
 * The session-36 trial (P4-3) on PostgreSQL: a `-p` holding a session records its command line in
 * `sessions.owner`, and an SDK client of a worker that sends to that session is refused with it
 * (so is the worker's stderr line). The `--store` password was hidden there, the `--base-url`'s
 * was not; both go through the one redaction now (llm/shown-values.ts).
 */

import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { CLI_PATH, outputOf } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { startTcpServer } from "./tcp-server.js";
import { describeWorkers } from "./workers-support.js";

/** `url` with `secret` as its user's password (the test server trusts every connection). */
const withPassword = (url: string, secret: string) =>
  url.replace("postgres://postgres@", `postgres://postgres:${secret}@`);

/** The command line of the first session's holder, as stored in `sessions.owner`. */
async function storedCommand(url: string): Promise<string> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ command: string }>(
      "SELECT owner->>'command' AS command FROM sessions",
    );
    expect(rows).toHaveLength(1);
    return rows[0]?.command ?? "";
  } finally {
    await client.end();
  }
}

describeWorkers("secrets in the holder a worker's refusal names", (workers) => {
  test("sessions.owner, the SDK client's refusal and the worker's stderr show no password", async () => {
    const { fixture, env } = workers;
    const database = env.TURNLOOP_DATABASE_URL ?? "";
    const baseUrl = `${fixture.model.url.replace("http://", "http://user:pw36@")}/v1`;
    const released = gate();
    const streaming = gate();
    fixture.model.enqueue({
      text: ["held", " reply"],
      pause: { afterEvents: 1, until: released.opened },
    });
    const holder = spawn(
      process.execPath,
      [
        CLI_PATH,
        ...["--store", withPassword(database, "hunter2"), "--base-url", baseUrl],
        ...["-p", "hold it", "--output-format", "stream-json"],
      ],
      { cwd: fixture.cwd, env },
    );
    holder.stdin.end();
    const held = outputOf(holder);
    holder.stdout.on("data", (chunk: Buffer) => {
      // The gate: the holder's reply is streaming, so it holds the session.
      if (chunk.toString("utf8").includes('"assistant.turn_start"')) {
        streaming.open();
      }
    });
    await streaming.opened;

    const command = await storedCommand(database);
    const shownStore = withPassword(database, "***");
    const shownBase = `${fixture.model.url.replace("http://", "http://user:***@")}/v1`;
    expect(command).toBe(
      `turnloop --store ${shownStore} --base-url ${shownBase} -p hold it --output-format stream-json`,
    );

    const worker = await startTcpServer(fixture, env);
    fixture.onClose(() => worker.stop());
    let stderr = "";
    worker.process.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const client = new TurnloopClient({ port: worker.port, cwd: fixture.cwd });
    const sessionId = (await client.listSessions())[0]?.sessionId ?? "";
    const onWorker = await client.resumeSession(sessionId, { onPermissionRequest: approveAll });
    const refusal = await onWorker.send({ prompt: "from the SDK" }).then(
      () => "sent",
      (error: unknown) => (error as Error).message,
    );
    released.open();
    expect((await held).code).toBe(0);
    await client.stop();
    await worker.stop();

    expect(refusal).toMatch(
      new RegExp(`^session\\.send failed: Session ${sessionId} is open in another process \\(`),
    );
    expect(refusal).toContain(`running: ${command}, since`);
    expect(stderr).toContain(`running: ${command}, since`);
    for (const text of [command, refusal, stderr]) {
      expect(text).not.toMatch(/hunter2|pw36/);
    }
  }, 90_000);
});
