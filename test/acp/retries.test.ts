import { expect, test } from "vitest";
import { AcpHarness } from "./support.js";

// A trial (round 3, session 25) found an editor silent for half a minute while turnloop retried
// 5xx answers: README says "each retry is shown". The editor hides the agent's stderr, so the
// retry is an agent message chunk too, said in every face's words (events/errors.ts retryNote).

test("a retried request is shown to the editor and on stderr; a load does not replay it", async () => {
  let harness = await AcpHarness.start();
  const sessionId = await harness.newSession();
  harness.server.enqueue(
    { status: 503, body: { error: { message: "upstream busy" } } },
    { text: "ok after one 503" },
  );
  expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const chunks = harness
    .updates(sessionId)
    .flatMap((update) =>
      update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    );
  expect(chunks).toEqual([
    expect.stringMatching(/^⟳ retrying in \d+\.\d s \(attempt 1\): .*upstream busy.*\n$/),
    "ok after one 503",
  ]);
  expect(harness.stderr).toEqual([
    expect.stringMatching(
      new RegExp(
        `^turnloop: session ${sessionId}: retrying in \\d+\\.\\d s \\(attempt 1\\): .*upstream busy`,
      ),
    ),
  ]);
  harness = await harness.restart();
  await harness.loadSession(sessionId);
  const replayed = harness
    .updates(sessionId)
    .flatMap((update) =>
      update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    );
  expect(replayed).toEqual(["ok after one 503"]);
});
