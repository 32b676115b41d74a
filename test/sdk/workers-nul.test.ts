/**
 * A prompt holding U+0000 sent from worker B to a session worker A holds (a trial, round 3
 * session 29): it crosses through the PostgreSQL inbox, a `jsonb` column, which refuses the
 * `\u0000` escape. Two real server processes on one real database: A runs it, B sees it whole.
 */

import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { useWorkers } from "./workers-support.js";

const NUL_PROMPT = "from B: nul:\u0000:end";

describe.skipIf(postgresUnavailable !== undefined)("U+0000 through the inbox", () => {
  const workers = useWorkers();

  test("a prompt holding U+0000 sent from worker B runs on worker A as it was written", async () => {
    const onA = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const onB = await workers.worker().resumeSession(onA.sessionId);
    workers.fixture.model.enqueue({ text: "answered by worker A" });
    const reply = await onB.sendAndWait({ prompt: NUL_PROMPT });
    expect(reply?.data.content).toBe("answered by worker A");
    const prompts = (messages: Awaited<ReturnType<typeof onA.getMessages>>) =>
      messages.flatMap((event) => (event.type === "user.message" ? [event.data.content] : []));
    expect(prompts(await onA.getMessages())).toEqual([NUL_PROMPT]);
    expect(prompts(await onB.getMessages())).toEqual([NUL_PROMPT]);
    const sent = workers.fixture.model.requests.at(-1)?.body as {
      messages: { content: unknown }[];
    };
    expect(JSON.stringify(sent.messages.at(-1)?.content)).toContain("nul:\\u0000:end");
  });
});
