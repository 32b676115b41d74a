/**
 * A prompt whose owner fails before storing its `user.message` (issue 22): a follower read nothing
 * stored of it, so nothing stored could end its wait, and its `sendAndWait` (or its editor's
 * `session/prompt`) hung until its own timeout. The owner now refuses it through the inbox, as
 * it refuses an over-large prompt (server/send-job.ts `sendFailed`); a prompt of the owner's own
 * app gets the same failure as a `session.error` then idle. The failure is a real one: the prompt
 * attaches a blob, which the worker that runs it keeps in the session's `files` folder
 * (server/prompt-text.ts) before it stores the prompt, and a file stands where that folder goes.
 * (Until session 36 the trigger was a self-linked `AGENTS.md`; an instruction file that cannot
 * be read is now a warning and the prompt runs: test/cli/instructions-unreadable.test.ts.)
 */

import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers, TEXT_PROMPT } from "./workers-support.js";

/** A prompt with a blob attached, kept by the worker that runs it in the session's `files` folder. */
const withBlob = {
  prompt: "hello",
  attachments: [
    {
      type: "blob" as const,
      data: Buffer.from("a note").toString("base64"),
      mimeType: "text/plain",
      displayName: "note.txt",
    },
  ],
};

/** Puts a file where the session's `files` folder goes (`workspacePath`); undoes it after `use`. */
async function withFilesBlocked<T>(workspacePath: string, use: () => Promise<T>): Promise<T> {
  const files = join(workspacePath, "files");
  await mkdir(workspacePath, { recursive: true });
  await writeFile(files, "not a folder");
  try {
    return await use();
  } finally {
    await rm(files);
  }
}

/** The error a prompt with a blob fails with while a file stands where its `files` folder goes. */
const blockedError = (workspacePath: string) =>
  `internal error: EEXIST: file already exists, mkdir '${join(workspacePath, "files")}'`;

/** What the owner tells a follower of it: that error, where, and that nothing was stored. */
const refusal = (workspacePath: string, sessionId: string) =>
  `${blockedError(workspacePath)} (on the worker that holds session ${sessionId}); nothing of the prompt was stored`;

describeWorkers("a prompt whose owner fails before storing it", (workers) => {
  test("an SDK follower's sendAndWait rejects with the owner's error; nothing stored; the next prompt runs", async () => {
    const { fixture } = workers;
    const { held, follower, seen } = await workers.heldAndFollowed();
    const requests = fixture.model.requests.length;
    await withFilesBlocked(held.workspacePath, async () => {
      const failure = await follower.sendAndWait(withBlob).catch((error: unknown) => error);
      const message = refusal(held.workspacePath, held.sessionId);
      expect(String(failure)).toBe(`Error: ${message}`);
      expect(seen).toEqual([
        { type: "session.error", data: { errorType: "internal", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
    });
    expect(fixture.model.requests).toHaveLength(requests);
    expect((await held.getMessages()).map((event) => event.type)).toEqual(["session.start"]);

    fixture.model.enqueue({ text: "fine" });
    expect((await follower.sendAndWait({ prompt: "again" }))?.data.content).toBe("fine");
  });

  // An ACP follower's prompt carries text only (acp/remote-session.ts), so no blob can make the
  // owner fail before storing it; the self-linked AGENTS.md that did is now a warning. What the
  // editor sees of that: the prompt runs on the owner, which stores the warning with it.
  test("an ACP follower's session/prompt in a project whose AGENTS.md links to itself runs on the owner, the warning stored", async () => {
    const { fixture, env } = workers;
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const editor = startAcpAgent(env, fixture.cwd);
    const agents = join(fixture.cwd, "AGENTS.md");
    try {
      await editor.load(held.sessionId);
      await symlink("AGENTS.md", agents);
      fixture.model.enqueue({ text: "fine" });
      expect(
        await editor.agent.request("session/prompt", {
          sessionId: held.sessionId,
          prompt: [{ type: "text", text: "hello" }],
        }),
      ).toEqual({ stopReason: "end_turn" });
      const warnings = (await held.getMessages()).flatMap((event) =>
        event.type === "session.warning" ? [event.data] : [],
      );
      expect(warnings).toEqual([
        {
          warningType: "instructions_refused",
          message: `${agents} cannot be read: ELOOP: too many symbolic links encountered, stat '${agents}'; it was left out of the instructions (README, "Project files")`,
        },
      ]);
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
    await withFilesBlocked(session.workspacePath, async () => {
      const failure = await session.sendAndWait(withBlob).catch((error: unknown) => error);
      const message = blockedError(session.workspacePath);
      expect(String(failure)).toBe(`Error: ${message}`);
      expect(seen).toEqual([
        { type: "session.error", data: { errorType: "internal", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
    });
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
