import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { AcpHarness } from "./support.js";

// Trial 43 F3: an edit of a file the editor could not read (`fs/read_text_file` answered an
// error) was put to the user without a diff, then failed. It now fails before the question, as
// an edit that cannot apply does.

test("an edit of a file the editor cannot read fails without a permission question", async () => {
  const harness = await AcpHarness.start({
    offer: { fs: { readTextFile: true, writeTextFile: true } },
  });
  const path = join(harness.cwd, "rerr.txt");
  await writeFile(path, "old text\n");
  harness.behaviour.unreadable = new Set([path]);
  const edit = { path: "rerr.txt", old_str: "old", new_str: "new" };
  harness.server.enqueue(
    { toolCalls: [{ id: "call_E1", name: "edit", arguments: JSON.stringify(edit) }] },
    { text: "Done." },
  );
  const sessionId = await harness.newSession();
  expect(await harness.prompt(sessionId, "edit it")).toEqual({ stopReason: "end_turn" });
  expect(harness.behaviour.calls.map((call) => call.method)).toEqual(["fs/read_text_file"]);
  const results = (await harness.persisted(sessionId)).flatMap((event) =>
    event.type === "tool.execution_complete" ? [event.data] : [],
  );
  // The SDK answers a handler's throw as JSON-RPC -32603 "Internal error".
  expect(results).toEqual([
    {
      toolCallId: "call_E1",
      toolName: "edit",
      success: false,
      result: { content: "edit failed: Internal error" },
      error: { code: "failed", message: "edit failed: Internal error" },
    },
  ]);
});
