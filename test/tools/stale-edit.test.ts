import { createHash } from "node:crypto";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { FakeModelServer, Reply } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { chatMessages } from "../support/harness.js";
import { type CallOf, callingTools } from "../support/replies.js";

// An edit after the file changed since the model last viewed it went through against text the
// model never saw: a user's, a formatter's or `git checkout`'s change could be overwritten or
// the edit land where the model did not mean. Now such an edit, or a create that overwrites, is
// refused with words telling the model to view the file again; a `touch`, a partial view and the
// model's own edits and creates do not make a file stale, and a resumed session knows what its
// log says. Through `-p` with the fake model; the file is changed between two model requests by
// the fake model's responder, when the request carrying the earlier results arrives.

/** One model reply, and what the user does to the files just before it is sent. */
interface Step {
  before?: () => void;
  reply: Reply;
}

/** Answers the model's requests with `steps`, in order, running each step's `before` first. */
function script(model: FakeModelServer, steps: readonly Step[]): void {
  let next = 0;
  model.setResponder(() => {
    const step = steps[next];
    next += 1;
    if (step === undefined) {
      return { text: "(no more steps)" };
    }
    step.before?.();
    return step.reply;
  });
}

const calling = (...calls: CallOf[]): Step => ({ reply: callingTools(...calls) });

/** The tool results the model read in the last request, by call id. */
function toolResults(model: FakeModelServer): Array<[unknown, unknown]> {
  return chatMessages(model, -1)
    .filter((message) => message.role === "tool")
    .map((message) => [message.tool_call_id, message.content]);
}

function changed(path: string, verb: string): string {
  return (
    `File ${path} changed since it was last viewed (by the user, a formatter or another ` +
    `program): ${verb} and the file keeps its new text. View it again, then make the change ` +
    "against what it holds now."
  );
}

/** The hash `knownFile` carries for `text` (UTF-16 code units, SHA-256, hex). */
function hashOf(text: string): string {
  return createHash("sha256").update(text, "utf16le").digest("hex");
}

describe("an edit of a file that changed since the model viewed it", () => {
  test("is refused, as is a create over it; a touch, a partial view and the model's own writes are not changes", async ({
    cli,
    model,
    repository,
  }) => {
    const path = join(repository, "a.txt");
    writeFileSync(path, "first = 1\nsecond = 2\n");
    script(model, [
      calling(["call_view", "view", { path: "a.txt", view_range: [1, 1] }]),
      {
        // A touch: the time changes, the text does not.
        before: () => utimesSync(path, new Date(2_000_000_000_000), new Date(2_000_000_000_000)),
        reply: callingTools([
          "call_e1",
          "edit",
          { path: "a.txt", old_str: "first = 1", new_str: "first = 10" },
        ]),
      },
      // Two edits of one reply: the second reads the first one's text.
      calling(
        ["call_e2", "edit", { path: "a.txt", old_str: "second = 2", new_str: "second = 20" }],
        ["call_e3", "edit", { path: "a.txt", old_str: "first = 10", new_str: "first = 100" }],
      ),
      calling([
        "call_c1",
        "create",
        { path: "a.txt", file_text: "first = 100\nsecond = 20\nthird = 3\n", overwrite: true },
      ]),
      {
        // The user changes a line the model does not touch; old_str still matches.
        before: () => writeFileSync(path, "first = 100\nsecond = 21\nthird = 3\n"),
        reply: callingTools([
          "call_e4",
          "edit",
          { path: "a.txt", old_str: "third = 3", new_str: "third = 30" },
        ]),
      },
      calling([
        "call_c2",
        "create",
        { path: "a.txt", file_text: "first = 100\nsecond = 20\nthird = 30\n", overwrite: true },
      ]),
      calling(["call_view2", "view", { path: "a.txt" }]),
      calling(["call_e5", "edit", { path: "a.txt", old_str: "third = 3", new_str: "third = 30" }]),
      { reply: { text: "Done." } },
    ]);
    const run = await cli(["-p", "tidy a.txt", "--allow-all-tools"]);
    expect([run.code, run.stdout]).toEqual([0, "Done.\n"]);
    expect(toolResults(model)).toEqual([
      ["call_view", "1. first = 1"],
      [
        "call_e1",
        `File ${path} updated with changes.\n\n@@ -1,2 +1,2 @@\n-first = 1\n+first = 10\n second = 2`,
      ],
      [
        "call_e2",
        `File ${path} updated with changes.\n\n@@ -1,2 +1,2 @@\n first = 10\n-second = 2\n+second = 20`,
      ],
      [
        "call_e3",
        `File ${path} updated with changes.\n\n@@ -1,2 +1,2 @@\n-first = 10\n+first = 100\n second = 20`,
      ],
      ["call_c1", `Overwrote file ${path} with 34 characters`],
      ["call_e4", changed(path, "the edit was not made")],
      ["call_c2", changed(path, "it was not overwritten")],
      ["call_view2", "1. first = 100\n2. second = 21\n3. third = 3"],
      [
        "call_e5",
        `File ${path} updated with changes.\n\n@@ -1,3 +1,3 @@\n first = 100\n second = 21\n-third = 3\n+third = 30`,
      ],
    ]);
    expect(readFileSync(path, "utf8")).toBe("first = 100\nsecond = 21\nthird = 30\n");
    // What the user reads: the calls' lines on stderr, without their times and the end of a
    // line cut to the width, which follows under it (where the cut falls depends on the time's
    // digits): one such line under each refused call.
    const lines = run.stderr
      .replace(/ \([\d.]+ (?:ms|s|min)\)/g, "")
      .replace(/ and the file keeps.*/g, "");
    const rests = lines.split("\n").filter((line) => line.startsWith("    …"));
    expect(rests).toHaveLength(2);
    const callLines = lines.split("\n").filter((line) => !line.startsWith("    …"));
    expect(callLines.slice(0, 9)).toEqual([
      "✓ view a.txt",
      "✓ edit a.txt +1 −1",
      "✓ edit a.txt +1 −1",
      "✓ edit a.txt +1 −1",
      "✓ create a.txt +3",
      `✗ edit a.txt failed: File ${path} changed since it was last viewed (by the user, a formatter or another program): the edit was not made`,
      `✗ create a.txt failed: File ${path} changed since it was last viewed (by the user, a formatter or another program): it was not overwritten`,
      "✓ view a.txt",
      "✓ edit a.txt +1 −1",
    ]);
  });
});

describe("a resumed session", () => {
  test("neither refuses an edit of a file it viewed before nor accepts one after the file changed", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const path = join(repository, "notes.md");
    writeFileSync(path, "# Notes\n\ntodo: write\n");
    script(model, [
      calling(["call_view", "view", { path: "notes.md" }]),
      { reply: { text: "Read it." } },
      calling([
        "call_e1",
        "edit",
        { path: "notes.md", old_str: "todo: write", new_str: "done: write" },
      ]),
      { reply: { text: "Edited." } },
      {
        before: () => writeFileSync(path, "# Notes\n\ndone: write\ntodo: review\n"),
        reply: callingTools([
          "call_e2",
          "edit",
          { path: "notes.md", old_str: "# Notes", new_str: "# My notes" },
        ]),
      },
      { reply: { text: "Refused." } },
    ]);
    const first = await cli(["-p", "read notes.md", "--allow-all-tools"]);
    const id = printedSessionId(first.stderr);
    const second = await cli(["-p", "mark it done", "--allow-all-tools", "--resume", id]);
    const viewed = ["call_view", "1. # Notes\n2.\n3. todo: write"];
    const edited = [
      "call_e1",
      `File ${path} updated with changes.\n\n@@ -1,3 +1,3 @@\n # Notes\n \n-todo: write\n+done: write`,
    ];
    expect(toolResults(model)).toEqual([viewed, edited]);
    // The user adds a line; the model, resumed again, edits what it last knew.
    const third = await cli(["-p", "retitle it", "--allow-all-tools", "--resume", id]);
    expect([first.code, second.code, third.code]).toEqual([0, 0, 0]);
    expect(toolResults(model)).toEqual([
      viewed,
      edited,
      ["call_e2", changed(path, "the edit was not made")],
    ]);
    expect(readFileSync(path, "utf8")).toBe("# Notes\n\ndone: write\ntodo: review\n");
    const completions = (await loggedEvents(id))
      .filter((event) => event.type === "tool.execution_complete")
      .map(({ data }) => [data.toolCallId, data.success, data.knownFile]);
    expect(completions).toEqual([
      ["call_view", true, { path, sha256: hashOf("# Notes\n\ntodo: write\n") }],
      ["call_e1", true, { path, sha256: hashOf("# Notes\n\ndone: write\n") }],
      ["call_e2", false, undefined],
    ]);
  });
});
