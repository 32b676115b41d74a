import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { viewTool } from "../../src/tools/view.js";
import { test } from "../support/fixtures.js";
import { callingTools } from "../support/replies.js";

// Trial 43 F6: `view_range` [0, 2] and [1.5, 3] were read as [1, 2] and [1, 3] without a word,
// while the schema says 1-based; the arguments are now refused at the edge, before the file is
// read, and the model is told which number is wrong.

function results(events: readonly SessionEvent[]): unknown[] {
  return events.flatMap((event) =>
    event.type === "tool.execution_complete"
      ? [
          {
            id: event.data.toolCallId,
            success: event.data.success,
            text: event.data.result.content,
          },
        ]
      : [],
  );
}

test("a view_range starting at 0 or holding a fraction is refused; whole numbers from 1 are read", async ({
  openHarness,
}) => {
  const harness = await openHarness({ tools: [viewTool] });
  await writeFile(join(harness.cwd, "lines.txt"), "one\ntwo\nthree\n");
  harness.server.enqueue(
    callingTools(
      ["v1", "view", { path: "lines.txt", view_range: [0, 2] }],
      ["v2", "view", { path: "lines.txt", view_range: [1.5, 3] }],
      ["v3", "view", { path: "lines.txt", view_range: [2, 3] }],
    ),
    { text: "done" },
  );
  expect(await harness.prompt("read it")).toEqual({ stopReason: "end_turn" });
  expect(results(harness.events)).toEqual([
    {
      id: "v1",
      success: false,
      text:
        "Invalid arguments for 'view': ✖ lines are numbered from 1: start at 1 or after → at view_range " +
        '(received {"path":"lines.txt","view_range":[0,2]}).',
    },
    {
      id: "v2",
      success: false,
      text:
        "Invalid arguments for 'view': ✖ line numbers are whole numbers → at view_range[0] " +
        '(received {"path":"lines.txt","view_range":[1.5,3]}).',
    },
    { id: "v3", success: true, text: "2. two\n3. three" },
  ]);
});
