import { describe, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll } from "../../src/sdk/index.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { FIRST_PROMPT_LOGGED } from "../support/storage-refusals.js";
import { fixtureForFile, recordEvents } from "./support.js";

// Round 3, session 29's review: a batch of events PostgreSQL refuses for good (a CHECK constraint
// here; a trigger, a value a column cannot hold) was kept and sent again at every commit, so every
// later prompt of the session failed with the same error, for ever. Events after the refused ones
// cannot be stored without them (each names the one before it: a reader skips what follows a
// missing parent), so the session stops: the refused events are named as lost, later prompts are
// refused at once with the same words (no model request), and a resume goes on from the last
// stored event. An outage (the database unreachable) is still waited out and sent again
// (store-outage.test.ts).

const fixture = fixtureForFile();

const LOST =
  /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \(the database refuses 3 events of this session for good \(assistant\.message, assistant\.usage, assistant\.turn_end: new row for relation "events" violates check constraint "no_marker"\); they are lost, and the session takes no more events here: resume it to go on after its last stored event\): the prompt was stopped; every event written before is kept$/;

describe.skipIf(postgresUnavailable !== undefined)("a batch PostgreSQL refuses for good", () => {
  test("its events are named as lost, the session stops, a resume goes on from the log", {
    timeout: 120_000,
  }, async () => {
    const database = await createTestDatabase();
    fixture.onClose(() => database.drop());
    const client = fixture.client({ env: { ...fixture.env, TURNLOOP_DATABASE_URL: database.url } });
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents<WireEvent>(session);
    fixture.model.enqueue({ text: "first answer" });
    await session.sendAndWait({ prompt: "one" });
    await database.pool.query(
      "ALTER TABLE events ADD CONSTRAINT no_marker CHECK (data NOT LIKE '%REFUSED-BY-POLICY%')",
    );
    fixture.model.enqueue({ text: "REFUSED-BY-POLICY answer" });
    const refusal = (prompt: string) =>
      session.sendAndWait({ prompt }).then(
        () => "answered",
        (reason: unknown) => String(reason),
      );
    expect([await refusal("two"), await refusal("three")]).toEqual([
      expect.stringMatching(
        /^Error: postgres:.* could not be written \(the database refuses 3 events/,
      ),
      expect.stringMatching(
        /^Error: postgres:.* could not be written \(the database refuses 3 events/,
      ),
    ]);
    const seen = events
      .filter((event) => !event.type.endsWith("_delta"))
      .map((event) =>
        event.type === "session.error"
          ? [event.type, (event.data as { message: string }).message]
          : [event.type],
      );
    const answered = [
      ["assistant.turn_start"],
      ["session.usage_info"],
      ["assistant.usage"],
      ["assistant.message"],
      ["assistant.turn_end"],
    ];
    const error = ["session.error", expect.stringMatching(LOST)];
    expect(seen).toEqual([
      ["user.message"],
      ...answered,
      ["assistant.idle"],
      ["session.idle"],
      ["user.message"],
      ...answered,
      error,
      ["assistant.idle"],
      ["session.idle"],
      // "three": refused before anything, no model request.
      error,
      ["assistant.idle"],
      ["session.idle"],
    ]);
    expect(fixture.model.requests).toHaveLength(2);
    const stored = async () =>
      (
        await database.pool.query<{ type: string }>("SELECT type FROM events ORDER BY seq")
      ).rows.map((row) => row.type);
    const kept = [...FIRST_PROMPT_LOGGED, "user.message", "assistant.turn_start"];
    expect(await stored()).toEqual(kept);

    // The app resumes it (here, after leaving it): it goes on from the last stored event.
    await session.disconnect();
    const resumed = await client.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
    });
    fixture.model.enqueue({ text: "third answer" });
    expect((await resumed.sendAndWait({ prompt: "three" }))?.data.content).toBe("third answer");
    expect((await stored()).slice(kept.length)).toEqual([
      "session.resume",
      // The turn the refusal cut, ended by the resume's repair.
      "assistant.turn_end",
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "assistant.turn_end",
    ]);
  });
});
