/**
 * A claim while other apps still follow the session on the claiming worker (issue 22): worker A
 * owns a session, two apps on worker B follow it, A is killed (SIGKILL) mid-prompt and the first
 * app's next prompt claims the session on B. Both apps keep getting every stored event once, in
 * log order, whoever wrote it (A, B's claim, B's prompts), and both can send. Real server
 * processes on a real PostgreSQL, the fake model; each app's whole stream compared with the log.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { interruptedPromptMessage } from "../../src/session/dropped-prompts.js";
import { inLogOrder } from "./support.js";
import {
  describeWorkers,
  holdAnswers,
  recordEvents,
  TEXT_PROMPT_STORED,
  turnStartStored,
} from "./workers-support.js";

/** The events of `seen` the log holds (`stored` from the apps' resume on), in log order. */
function storedAmong(seen: readonly WireEvent[], stored: readonly WireEvent[]) {
  const ids = new Set(stored.map((event) => event.id));
  return inLogOrder(seen).filter((event) => ids.has(event.id));
}

describeWorkers(
  "two apps on worker B following A's session when A dies and B claims it",
  (workers) => {
    test("both hear every event of the log once, in order, and both can send", async () => {
      const { fixture } = workers;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const workerB = await workers.tcpWorker();
      const first = new TurnloopClient({ port: workerB.port, cwd: fixture.cwd });
      const second = new TurnloopClient({ port: workerB.port, cwd: fixture.cwd });
      const firstSession = await first.resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const secondSession = await second.resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const before = (await secondSession.getMessages()).length;
      const seenFirst = recordEvents(firstSession, 4);
      const seenSecond = recordEvents(secondSession, 4);

      // The first app's prompt runs on A, which dies mid-turn.
      const requested = holdAnswers(fixture.model);
      const cut = firstSession.sendAndWait({ prompt: "cut short on A" }).then(
        () => "answered",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      await requested;
      await turnStartStored(workers.env.TURNLOOP_DATABASE_URL ?? "", onA.sessionId);
      workerA.process.kill("SIGKILL");
      await workerA.exited;
      fixture.model.setResponder(undefined);
      expect(await cut).toBe(
        `the worker running session ${onA.sessionId} stopped (its process is gone) while running a prompt sent from this worker: it ended there unfinished`,
      );

      // The first app's next prompt claims the session on B; then the second app's runs there too.
      fixture.model.enqueue({ text: "answered for the first app" });
      const claimed = await firstSession.sendAndWait({ prompt: "claims on B" });
      expect(claimed?.data.content).toBe("answered for the first app");
      fixture.model.enqueue({ text: "answered for the second app" });
      const secondReply = await secondSession.sendAndWait({ prompt: "from the second app" });
      expect(secondReply?.data.content).toBe("answered for the second app");
      fixture.model.enqueue({ text: "the first app again" });
      const again = await firstSession.sendAndWait({ prompt: "first again" });
      expect(again?.data.content).toBe("the first app again");
      // The prompt cut short ends for each app when B sees A gone; then one idle for each prompt.
      await Promise.all([seenFirst.idle[3]?.opened, seenSecond.idle[3]?.opened]);

      const stored = (await secondSession.getMessages()).slice(before);
      const claim = stored.findIndex((event) => event.type === "session.resume");
      expect(stored.slice(claim).map((event) => event.type)).toEqual([
        "session.resume",
        "assistant.turn_end",
        ...TEXT_PROMPT_STORED,
        ...TEXT_PROMPT_STORED,
        ...TEXT_PROMPT_STORED,
      ]);
      expect(
        stored.flatMap((event) => (event.type === "user.message" ? [event.data.content] : [])),
      ).toEqual(["cut short on A", "claims on B", "from the second app", "first again"]);
      // Each app: every stored event once, in the log's order.
      expect(storedAmong(seenFirst.seen, stored)).toEqual(stored);
      expect(storedAmong(seenSecond.seen, stored)).toEqual(stored);
      // Each app sees the cut prompt end as a failed prompt ends on Copilot's wire: an error, then
      // the idle (not aborted: nobody cancelled it), once.
      const interrupted = `the worker running session ${onA.sessionId} stopped (its process is gone) while running a prompt sent from this worker: it ended there unfinished`;
      // From the cut prompt to the claiming prompt, each app's whole stream.
      const aroundCut = (seen: readonly WireEvent[]) => {
        const index = (content: string) =>
          seen.findIndex(
            (event) => event.type === "user.message" && event.data.content === content,
          );
        return seen.slice(index("cut short on A"), index("claims on B")).map((event) => {
          const data = event.data as Record<string, unknown>;
          return event.type === "session.error" || event.type.endsWith("idle")
            ? { type: event.type, data }
            : event.type;
        });
      };
      const idles = [
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ];
      expect(aroundCut(seenFirst.seen)).toEqual([
        "user.message",
        "assistant.turn_start",
        { type: "session.error", data: { errorType: "server", message: interrupted } },
        ...idles,
        "session.resume",
        "assistant.turn_end",
      ]);
      // The second app only follows: it is told at the death too (by whichever of B's checks saw
      // it first, with the cause B's fence saw), and the claim's repair is not told again.
      expect(aroundCut(seenSecond.seen)).toEqual([
        "user.message",
        "assistant.turn_start",
        {
          type: "session.error",
          data: {
            errorType: "server",
            message: interruptedPromptMessage(onA.sessionId, "followed", "ended"),
          },
        },
        ...idles,
        "session.resume",
        "assistant.turn_end",
      ]);
      await first.stop();
      await second.stop();
    }, 120_000);
  },
);
