import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { AcpHarness } from "./support.js";

/*
 * The failure of test/sdk/workers-owner-fails.test.ts (the project's `AGENTS.md` a link to
 * itself, so reading the instructions throws `ELOOP` before the prompt is stored) in an editor's
 * own session: its `session/prompt` is answered with an error, not left waiting, and the next
 * prompt runs once the link is gone.
 */

test("a prompt that fails before it is stored is answered with an error; the next one runs", async () => {
  const harness = await AcpHarness.start();
  const sessionId = await harness.newSession();
  const agents = join(harness.cwd, "AGENTS.md");
  await symlink("AGENTS.md", agents);
  const failure = await harness.prompt(sessionId, "hello").then(
    () => undefined,
    (error: unknown) => error,
  );
  await rm(agents);
  // The ACP SDK's answer to a handler that threw: -32603, the reason in `data.details`.
  const { code, message, data } = failure as { code: number; message: string; data: unknown };
  expect({ code, message, data }).toEqual({
    code: -32603,
    message: "Internal error",
    data: { details: `ELOOP: too many symbolic links encountered, stat '${agents}'` },
  });
  // Nothing of the prompt: only what session/new sent.
  expect(harness.updates(sessionId).map((update) => update.sessionUpdate)).toEqual([
    "available_commands_update",
  ]);
  expect(harness.server.requests).toHaveLength(0);

  harness.server.enqueue({ text: "fine" });
  expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
});
