import { expect, test } from "vitest";
import { zSessionNotification } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import { AcpHarness } from "./support.js";

// A trial (round 3, session 25) found an editor silent for half a minute while turnloop retried
// 5xx answers: README says "each retry is shown". The editor hides the agent's stderr, so the
// retry is told the editor too, in every face's words (events/errors.ts retryNote). Trial 27f
// found it sent as an agent message chunk, so it joined the reply (case 17), and not replayed on
// a load (case 25): it is a thought chunk now, live and replayed alike.

type Harness = Awaited<ReturnType<typeof AcpHarness.start>>;

/** The session's text chunks as [kind, text], each notification checked against ACP v1's schema. */
function chunks(harness: Harness, sessionId: string): Array<[string, string]> {
  for (const entry of harness.wire) {
    if (entry.direction === "to-client" && entry.message.method === "session/update") {
      expect(zSessionNotification.safeParse(entry.message.params).error).toBeUndefined();
    }
  }
  return harness
    .updates(sessionId)
    .flatMap(
      (update): Array<[string, string]> =>
        (update.sessionUpdate === "agent_message_chunk" ||
          update.sessionUpdate === "agent_thought_chunk") &&
        update.content.type === "text"
          ? [[update.sessionUpdate, update.content.text]]
          : [],
    );
}

test("a retried request is told the editor as a thought and on stderr; a load replays it the same way", async () => {
  let harness = await AcpHarness.start();
  const sessionId = await harness.newSession();
  harness.server.enqueue(
    { status: 503, body: { error: { message: "upstream busy" } } },
    { text: "ok after one 503" },
  );
  expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const live = chunks(harness, sessionId);
  expect(live).toEqual([
    [
      "agent_thought_chunk",
      expect.stringMatching(
        /^⟳ retrying in \d+(?:\.\d)? (?:ms|s|min) \(attempt 1\): .*upstream busy.*\n$/,
      ),
    ],
    ["agent_message_chunk", "ok after one 503"],
  ]);
  expect(harness.stderr).toEqual([
    expect.stringMatching(
      new RegExp(
        `^turnloop: session ${sessionId}: retrying in \\d+(?:\\.\\d)? (?:ms|s|min) \\(attempt 1\\): .*upstream busy`,
      ),
    ),
  ]);
  harness = await harness.restart();
  await harness.loadSession(sessionId);
  expect(chunks(harness, sessionId)).toEqual(live);
});
