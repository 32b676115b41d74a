import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Reply } from "../support/fake-model-types.js";
import { AcpHarness, requestMessages } from "./support.js";

// A trial in an editor: `view` with a view_range of a file the editor serves (client capability
// fs.readTextFile) fetched the whole file, with no `line` or `limit` (ACP `fs/read_text_file`:
// `line` 1-based, `limit` in lines). Now it asks for the lines it may show (at most 2000, the
// view's cut), and shows them when they are the lines the file on disk holds there; where the
// editor holds unsaved changes in them, it reads the editor's whole text as before, so the model
// sees the buffer and `edit` checks against it. A view of the whole file reads the whole file.
// The client is the ACP SDK's (test/acp/client-handlers.ts), answering `line`/`limit` as an
// editor does.

const LINES = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`);
/** The editor's buffer after the user typed into line 2 without saving. */
const buffer = LINES.map((line, index) => (index === 1 ? "line 2, typed on" : line));

const view = (id: string, range?: number[]): Reply => ({
  toolCalls: [
    {
      id,
      name: "view",
      arguments: JSON.stringify(
        range === undefined ? { path: "a.txt" } : { path: "a.txt", view_range: range },
      ),
    },
  ],
});

const edit = (id: string, oldString: string, newString: string): Reply => ({
  toolCalls: [
    {
      id,
      name: "edit",
      arguments: JSON.stringify({ path: "a.txt", old_str: oldString, new_str: newString }),
    },
  ],
});

describe("view with a view_range through the editor (fs/read_text_file)", () => {
  test("asks for the range's lines; unsaved changes in them read the buffer whole", async () => {
    const harness = await AcpHarness.start({
      offer: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const path = join(harness.cwd, "a.txt");
    await writeFile(path, `${LINES.join("\n")}\n`);
    const replies = [
      view("call_1", [3, 5]),
      view("call_2", [8, -1]),
      view("call_3", [12, 14]),
      view("call_4"),
      view("call_5", [2, 3]),
      view("call_6", [5, 6]),
      edit("call_7", "line 5", "line five"),
      view("call_8"),
      edit("call_9", "line 5", "line five"),
      { text: "Done." },
    ];
    harness.server.setResponder(() => {
      if (replies.length === 6) {
        // The user types into line 2 and does not save.
        harness.behaviour.buffers.set(path, `${buffer.join("\n")}\n`);
      }
      return replies.shift() ?? { text: "(no more replies)" };
    });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "read a.txt")).toEqual({ stopReason: "end_turn" });

    expect(
      harness.behaviour.calls
        .filter((call) => call.method === "fs/read_text_file")
        .map((call) => call.params),
    ).toEqual([
      { sessionId, path, line: 3, limit: 3 },
      { sessionId, path, line: 8, limit: 2000 },
      { sessionId, path, line: 12, limit: 3 },
      { sessionId, path },
      { sessionId, path, line: 2, limit: 2 },
      { sessionId, path },
      // Lines 5-6 are the disk's: the hash the view records is the disk text's, which the
      // editor's buffer (typed into at line 2) is not, so the edit is refused and says how to
      // read the buffer; viewed whole, the edit goes through (checked before it runs, then run).
      { sessionId, path, line: 5, limit: 2 },
      { sessionId, path },
      { sessionId, path },
      { sessionId, path },
      { sessionId, path },
    ]);
    expect(
      requestMessages(harness.server, -1)
        .filter((message) => message.role === "tool")
        .map((message) => [message.tool_call_id, message.content]),
    ).toEqual([
      ["call_1", "3. line 3\n4. line 4\n5. line 5"],
      ["call_2", "8. line 8\n9. line 9\n10. line 10"],
      ["call_3", "Invalid view_range: line 12 is past the end of the file (10 lines)."],
      ["call_4", LINES.map((line, index) => `${index + 1}. ${line}`).join("\n")],
      ["call_5", "2. line 2, typed on\n3. line 3"],
      ["call_6", "5. line 5\n6. line 6"],
      [
        "call_7",
        `File ${path} changed since it was last viewed (by the user, a formatter or another ` +
          "program): the edit was not made and the file keeps its new text. View it again, then " +
          "make the change against what it holds now. The editor holds changes to it not saved " +
          "to disk, which a view_range shows only in its own lines: view it without view_range.",
      ],
      ["call_8", buffer.map((line, index) => `${index + 1}. ${line}`).join("\n")],
      [
        "call_9",
        `File ${path} updated with changes.\n\n@@ -2,7 +2,7 @@\n line 2, typed on\n line 3\n` +
          " line 4\n-line 5\n+line five\n line 6\n line 7\n line 8",
      ],
    ]);
  });
});
