/**
 * A prompt whose owner fails before storing its `user.message` (issue 22): a follower read nothing
 * stored of it, so nothing stored could end its wait, and its `sendAndWait` (or its editor's
 * `session/prompt`) hung until its own timeout. The owner now refuses it through the inbox, as
 * it refuses an over-large prompt (server/send-job.ts `sendFailed`); a prompt of the owner's own
 * app gets the same failure as a `session.error` then idle. The failure is a real one: the
 * project's `AGENTS.md` is a link to itself, so reading the instructions for the prompt's system
 * prompt throws `ELOOP` (session/instructions.ts) on whichever worker runs it.
 */

import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers, TEXT_PROMPT } from "./workers-support.js";

/** The error a prompt in `cwd` fails with while its `AGENTS.md` is a link to itself. */
const loopError = (cwd: string) =>
  `internal error: ELOOP: too many symbolic links encountered, stat '${join(cwd, "AGENTS.md")}'`;

/** What the owner tells a follower of it: that error, where, and that nothing was stored. */
const refusal = (cwd: string, sessionId: string) =>
  `${loopError(cwd)} (on the worker that holds session ${sessionId}); nothing of the prompt was stored`;

describeWorkers("a prompt whose owner fails before storing it", (workers) => {
  test("an SDK follower's sendAndWait rejects with the owner's error; nothing stored; the next prompt runs", async () => {
    const { fixture } = workers;
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const follower = await workers
      .worker()
      .resumeSession(held.sessionId, { onPermissionRequest: approveAll });
    const seen: Array<{ type: string; data: unknown }> = [];
    follower.on((event) => {
      seen.push({ type: event.type, data: event.data });
    });
    const agents = join(fixture.cwd, "AGENTS.md");
    const requests = fixture.model.requests.length;
    await symlink("AGENTS.md", agents);
    try {
      const failure = await follower
        .sendAndWait({ prompt: "hello" })
        .catch((error: unknown) => error);
      const message = refusal(fixture.cwd, held.sessionId);
      expect(String(failure)).toBe(`Error: ${message}`);
      expect(seen).toEqual([
        { type: "session.error", data: { errorType: "internal", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: {} },
      ]);
    } finally {
      await rm(agents);
    }
    expect(fixture.model.requests).toHaveLength(requests);
    expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);

    fixture.model.enqueue({ text: "fine" });
    expect((await follower.sendAndWait({ prompt: "again" }))?.data.content).toBe("fine");
  });

  test("an ACP follower's session/prompt gets the owner's error, -32603; the next prompt runs", async () => {
    const { fixture, env } = workers;
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const editor = startAcpAgent(env, fixture.cwd);
    const agents = join(fixture.cwd, "AGENTS.md");
    const requests = fixture.model.requests.length;
    try {
      await editor.load(held.sessionId);
      await symlink("AGENTS.md", agents);
      const failure = await editor.agent
        .request("session/prompt", {
          sessionId: held.sessionId,
          prompt: [{ type: "text", text: "hello" }],
        })
        .catch((error: unknown) => error);
      const { code, message, data } = failure as { code: number; message: string; data: unknown };
      // As the owner's other refusals unstored are answered (acp/errors.ts `followedAnswer`).
      expect({ code, message, data }).toEqual({
        code: -32603,
        message: refusal(fixture.cwd, held.sessionId),
        data: undefined,
      });
      await rm(agents);
      expect(fixture.model.requests).toHaveLength(requests);
      expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);

      fixture.model.enqueue({ text: "fine" });
      expect(
        await editor.agent.request("session/prompt", {
          sessionId: held.sessionId,
          prompt: [{ type: "text", text: "again" }],
        }),
      ).toEqual({ stopReason: "end_turn" });
    } finally {
      await rm(agents, { force: true });
      await editor.stop();
    }
  });

  test("the owner's own app gets the error as session.error then idle, stored; the next prompt runs", async () => {
    const { fixture } = workers;
    const session = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const seen: Array<{ type: string; data: unknown }> = [];
    session.on((event) => {
      seen.push({ type: event.type, data: event.data });
    });
    const agents = join(fixture.cwd, "AGENTS.md");
    await symlink("AGENTS.md", agents);
    try {
      const failure = await session
        .sendAndWait({ prompt: "hello" })
        .catch((error: unknown) => error);
      const message = loopError(fixture.cwd);
      expect(String(failure)).toBe(`Error: ${message}`);
      expect(seen).toEqual([
        { type: "session.error", data: { errorType: "internal", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: {} },
      ]);
    } finally {
      await rm(agents);
    }
    expect((await session.getMessages()).map((event) => event.type)).toEqual([
      "session.start",
      "session.error",
    ]);
    seen.length = 0;
    fixture.model.enqueue({ text: "fine" });
    expect((await session.sendAndWait({ prompt: "again" }))?.data.content).toBe("fine");
    expect(seen.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message_delta",
      ...TEXT_PROMPT.slice(2),
    ]);
  });
});
