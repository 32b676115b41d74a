/**
 * A prompt beyond the model's known context window, sent by an ACP editor to a session another
 * worker holds (issue 22: through the store's inbox): the owner refuses it before storing or
 * sending anything, and the editor gets the refusal a local prompt gets (acp/errors.ts
 * `promptFailure`): a `-32602` error naming both sizes, its data the estimate and the window.
 */

import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { expectAcpPromptBeyondWindow, PROMPT_BEYOND_WINDOW } from "../support/context-limit.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("an ACP follower's prompt beyond the window", (workers) => {
  test("is refused as a local one: -32602 naming both sizes; nothing stored, the next prompt runs", async () => {
    const { fixture, env } = workers;
    env.TURNLOOP_CONTEXT_WINDOW = "8000";
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.load(held.sessionId);
      const failure = await editor.agent
        .request("session/prompt", {
          sessionId: held.sessionId,
          prompt: [{ type: "text", text: PROMPT_BEYOND_WINDOW }],
        })
        .catch((error: unknown) => error);
      expectAcpPromptBeyondWindow(failure);
      expect(fixture.model.requests).toHaveLength(0);
      expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);

      fixture.model.enqueue({ text: "fine" });
      expect(
        await editor.agent.request("session/prompt", {
          sessionId: held.sessionId,
          prompt: [{ type: "text", text: "short" }],
        }),
      ).toEqual({ stopReason: "end_turn" });
    } finally {
      await editor.stop();
    }
  });
});
