import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import type { Reply } from "../support/fake-model-types.js";
import { AcpHarness, requestMessages } from "./support.js";

// In an editor, the text the model views is the editor's buffer (`fs/read_text_file`, unsaved
// changes included). When the user types into that buffer after the model's view, an edit made
// against the text the model saw went through and was written over the user's typing. Now it is
// refused, nothing is written, and the model is told to view the file again. The client is the
// ACP SDK's, offering fs; the buffer changes when the model's next request arrives.

const text = (value: string) => ({ type: "content", content: { type: "text", text: value } });

describe("an edit through the client after the user typed into the editor's buffer", () => {
  test("is refused and writes nothing; viewed again, the edit goes through the client", async () => {
    const harness = await AcpHarness.start({
      offer: { fs: { readTextFile: true, writeTextFile: true } },
      face: { allowAllTools: true },
    });
    const path = join(harness.cwd, "a.txt");
    await writeFile(path, "saved text\n");
    harness.behaviour.buffers.set(path, "unsaved text\n");
    const edit = (id: string, oldString: string, newString: string): Reply => ({
      toolCalls: [
        {
          id,
          name: "edit",
          arguments: JSON.stringify({ path: "a.txt", old_str: oldString, new_str: newString }),
        },
      ],
    });
    const view = (id: string): Reply => ({
      toolCalls: [{ id, name: "view", arguments: '{"path":"a.txt"}' }],
    });
    const steps: Array<{ before?: () => void; reply: Reply }> = [
      { reply: view("call_V1") },
      {
        // The user types into the buffer and does not save.
        before: () => harness.behaviour.buffers.set(path, "unsaved text, typed on\n"),
        reply: edit("call_E1", "unsaved text", "model text"),
      },
      { reply: view("call_V2") },
      { reply: edit("call_E2", "typed on", "typed on and edited") },
      { reply: { text: "Done." } },
    ];
    harness.server.setResponder(() => {
      const step = steps.shift() ?? { reply: { text: "(no more steps)" } };
      step.before?.();
      return step.reply;
    });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "edit a.txt")).toEqual({ stopReason: "end_turn" });

    const refusal =
      `File ${path} changed since it was last viewed (by the user, a formatter or another ` +
      "program): the edit was not made and the file keeps its new text. View it again, then " +
      "make the change against what it holds now.";
    expect(
      requestMessages(harness.server, -1)
        .filter((message) => message.role === "tool")
        .map((message) => [message.tool_call_id, message.content]),
    ).toEqual([
      ["call_V1", "1. unsaved text"],
      ["call_E1", refusal],
      ["call_V2", "1. unsaved text, typed on"],
      [
        "call_E2",
        `File ${path} updated with changes.\n\n@@ -1,1 +1,1 @@\n-unsaved text, typed on\n+unsaved text, typed on and edited`,
      ],
    ]);
    // The editor shows the refusal on the call; only the second edit was written, through it.
    const final = (id: string) =>
      harness
        .updates()
        .filter(
          (update): update is acp.ToolCallUpdate & { sessionUpdate: "tool_call_update" } =>
            update.sessionUpdate === "tool_call_update" && update.toolCallId === id,
        )
        .filter((update) => update.status != null)
        .at(-1);
    expect(final("call_E1")).toMatchObject({ status: "failed", content: [text(refusal)] });
    expect(
      harness.behaviour.calls
        .filter((call) => call.method === "fs/write_text_file")
        .map((call) => call.params),
    ).toEqual([{ sessionId, path, content: "unsaved text, typed on and edited\n" }]);
    expect(await readFile(path, "utf8")).toBe("unsaved text, typed on and edited\n");
  });
});
