/**
 * ACP on a session another worker holds (issue 22), when that owner closes the session while the
 * editor's prompt waits in its queue: the editor's `session/prompt` ends with the error that says
 * to send it again, in the wording the Copilot protocol's followers get (session/dropped-prompts.ts),
 * and the prompt never runs.
 */

import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { holdAnswers, useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "ACP: the owner drops the editor's prompt",
  () => {
    const workers = useWorkers();

    test("it closes the session with the editor's prompt queued: the prompt ends with 'send it again'", async () => {
      const { fixture, env } = workers;
      const owner = await workers.worker().createSession({ onPermissionRequest: approveAll });
      fixture.model.enqueue({ text: "first answer" });
      await owner.sendAndWait({ prompt: "first" });
      const editor = startAcpAgent(env, fixture.cwd);
      try {
        await editor.load(owner.sessionId);
        const requestsBefore = fixture.model.requests.length;
        const requested = holdAnswers(fixture.model);
        await owner.send({ prompt: "held" });
        await requested.opened;
        const queued = gate();
        owner.on((event) => {
          if (event.type === "pending_messages.modified") {
            queued.open();
          }
        });
        const settled = editor.promptSettled(owner.sessionId, "queued behind the held one");
        await queued.opened;
        await owner.disconnect();
        fixture.model.setResponder(undefined);
        expect(await settled).toEqual({
          error: {
            code: -32603,
            message: `The model request failed: the worker running session ${owner.sessionId} closed it before this prompt ended; send it again to run it here`,
          },
        });
        // Only the owner's held prompt reached the model.
        expect(fixture.model.requests.length - requestsBefore).toBe(1);
      } finally {
        await editor.stop();
      }
    });
  },
);
