/**
 * The events `turnloop acp` stores when it claims a session reach its client like every other
 * event (the ACP face's case of workers-claim-events.test.ts): worker A (a real server process)
 * runs a slow `bash` call of its own client while `turnloop acp` on the same database follows
 * the session; A is killed mid-tool. The editor's prompt, queued for A, ends with an error; its
 * resend claims the session, which stores `session.resume` and the interrupted call's result.
 * The editor is told that result (its call shown failed, not left running), before the answer
 * of its prompt: every event of the log reaches the client once, in log order, whoever wrote it.
 */

import { join } from "node:path";
import { expect, test } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { describeWorkers, QUICK_OWNER_CHECK } from "./workers-support.js";

describeWorkers(
  "a session the ACP process claims after its owner died mid-tool",
  (workers) => {
    test("the editor is told the interrupted call's result the claim stored, then its answer", async () => {
      const { fixture, env } = workers;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const { sessionId } = onA;
      const editor = startAcpAgent(env, fixture.cwd);
      try {
        await editor.load(sessionId);
        const started = join(fixture.cwd, "slow-started.txt");
        const command = `touch ${started} && sleep 30`;
        fixture.model.enqueue(callingTools(["slow-1", "bash", { command }]));
        const running = gate();
        whenFileExists(started, workerA.process, () => running.open());
        await onA.send({ prompt: "slow on A" });
        await running.opened;
        const waited = editor.promptSettled(sessionId, "sent from the editor");
        workerA.process.kill("SIGKILL");
        await workerA.exited;
        const settled = await waited;
        expect(settled).toMatchObject({ error: { code: -32603 } });
        const beforeClaim = editor.updates.length;

        fixture.model.enqueue({ text: "answered in the ACP process" });
        const claimed = await editor.prompt(sessionId, "sent from the editor");
        expect(claimed).toEqual({ stopReason: "end_turn" });
        expect(editor.updates.slice(beforeClaim).map(withoutIds)).toEqual([
          // The claim's own events: the call A left running ends interrupted.
          expect.objectContaining({
            sessionUpdate: "tool_call_update",
            toolCallId: "slow-1",
            status: "failed",
          }),
          expect.objectContaining({ sessionUpdate: "available_commands_update" }),
          // What opening the log here repaired, as every session opened with a repair says it:
          // turnloop's own notice, a thought for an editor that offers no `notice` (acp/notices.ts).
          expect.objectContaining({ sessionUpdate: "agent_thought_chunk" }),
          text("agent_message_chunk", "answered in the ACP process"),
        ]);
      } finally {
        await editor.stop();
      }
    }, 120_000);
  },
  QUICK_OWNER_CHECK,
);
