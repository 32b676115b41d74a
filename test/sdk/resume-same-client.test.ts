import { describe, expect, test } from "vitest";
import { approveAll, type TurnloopClient } from "../../src/sdk/index.js";
import { fixtureForFile } from "./support.js";

/**
 * `disconnect()` then `resumeSession` of the same id on the same client (a fresh user's trial):
 * the client kept the disconnected object and handed it back, so every event was dropped and
 * `sendAndWait` waited for its timeout.
 */

const fixture = fixtureForFile();

describe("resume after disconnect on the same client", () => {
  test("gives a working session: its events arrive and sendAndWait answers; the old object stays closed", async () => {
    const client: TurnloopClient = await fixture.startedClient();
    const session = await client.createSession({ onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "first" });
    await session.sendAndWait({ prompt: "one" });
    const oldEvents: string[] = [];
    session.on((event) => oldEvents.push(event.type));
    await session.disconnect();

    const resumed = await client.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
    });
    const seen: string[] = [];
    resumed.on((event) => seen.push(event.type));
    fixture.model.enqueue({ text: "after resume" });
    const reply = await resumed.sendAndWait({ prompt: "two" }, 20_000);
    expect(reply?.data.content).toBe("after resume");
    expect(seen).toContain("assistant.message");
    expect(seen.at(-1)).toBe("session.idle");
    // The old object saw its own detach and nothing after.
    expect(oldEvents).toEqual(["session.shutdown"]);
    await resumed.disconnect();
  });
});
