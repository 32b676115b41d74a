/**
 * A prompt beyond the model's known context window, sent by an SDK app to a server worker that
 * follows a session another server worker holds (issue 22: through the store's inbox): the owner
 * refuses it before storing or sending anything and answers on the inbox (session-store.ts
 * `SessionInbox.refuse`); the follower's app gets what a local refusal gives
 * (test/sdk/prompt-too-large.test.ts): `session.error` with the owner's message, then the
 * prompt's end, so `sendAndWait` rejects with it; nothing is stored, and the next prompt runs.
 */

import { expect, test } from "vitest";
import { PROMPT_BEYOND_WINDOW } from "../support/context-limit.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("an SDK follower's prompt beyond the window", (workers) => {
  test("is refused as a local one: session.error with the owner's message, then idle; nothing stored", async () => {
    const { fixture, env } = workers;
    env.TURNLOOP_CONTEXT_WINDOW = "8000";
    const { held, follower, seen } = await workers.heldAndFollowed();

    const failure = await follower
      .sendAndWait({ prompt: PROMPT_BEYOND_WINDOW })
      .catch((error: unknown) => error);
    expect(String(failure)).toMatch(
      /^Error: the prompt is about \d+ tokens with the system prompt and tools \(99999 characters\), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent\. Send a smaller part of it or fewer files, use a model with a larger window \(.*\), or, if openai-compatible:fake-model's window is larger, set it with TURNLOOP_CONTEXT_WINDOW in the server's environment\.$/,
    );
    const message = String(failure).replace(/^Error: /, "");
    expect(seen.filter((event) => event.type !== "session.usage_info")).toEqual([
      { type: "session.error", data: { errorType: "context_length_exceeded", message } },
      { type: "assistant.idle", data: {} },
      { type: "session.idle", data: { mode: "interactive" } },
    ]);
    expect(fixture.model.requests).toHaveLength(0);
    expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);

    fixture.model.enqueue({ text: "fine" });
    expect((await follower.sendAndWait({ prompt: "short" }))?.data.content).toBe("fine");
  });
});
