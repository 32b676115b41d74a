import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { TurnloopClient, TurnloopSession } from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, recordEvents } from "./support.js";

/**
 * Round 3 session 21's trial, item 6: the `abort` event's `reason` on the SDK wire is Copilot's
 * `AbortReason` where one fits (`user_initiated` for the app's `session.abort`, turnloop's text
 * beside it as `message`), while `events.jsonl` keeps turnloop's text; an app that left is not
 * recorded as "cancelled by the user".
 */
const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/** A session running `sleep 30` through bash, resolved once the command has started. */
async function sleeping(): Promise<TurnloopSession> {
  const session = await client.createSession({ allowAllTools: true });
  fixture.model.enqueue(
    callingTools(["call_sleep", "bash", { command: "echo started; sleep 30" }]),
  );
  const started = nextEvent(session, (event) => event.type === "tool.execution_partial_result");
  await session.send({ prompt: "sleep" });
  await started;
  return session;
}

/** The `abort` events' data of the session's `events.jsonl`. */
async function loggedAborts(session: TurnloopSession): Promise<unknown[]> {
  const text = await readFile(join(session.workspacePath, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; data: unknown })
    .filter((event) => event.type === "abort")
    .map((event) => event.data);
}

describe("the abort event's reason", () => {
  test("session.abort: user_initiated on the wire, live and in getMessages; the log keeps its text", async () => {
    const session = await sleeping();
    const events = recordEvents(session);
    await session.abort();
    const wire = { reason: "user_initiated", message: "cancelled by the user" };
    expect(events.filter((event) => event.type === "abort").map((event) => event.data)).toEqual([
      wire,
    ]);
    const stored = (await session.getMessages()).filter((event) => event.type === "abort");
    expect(stored.map((event) => event.data)).toEqual([wire]);
    expect(await loggedAborts(session)).toEqual([{ reason: "cancelled by the user" }]);
  });

  test("an app that detaches mid-prompt is not recorded as the user's cancel", async () => {
    const session = await sleeping();
    await session.disconnect();
    expect(await loggedAborts(session)).toEqual([
      { reason: "cancelled by the app leaving the session (session.detach)" },
    ]);
  });
});
