import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { callingTools } from "../support/replies.js";
import { chatBody, fixtureForEachTest, nextEvent, startCopilotClient } from "./support.js";

// A trial's finding (round 3, session 35, H4): the SDK face stored its Copilot wording of a
// result in the shared log, so a command cancelled through `abort()` kept only "The execution of
// this tool, or a previous tool was interrupted." and an edit only "File … updated with
// changes.": `sessions show`, the ACP replay and the model's next request on another face lost the
// command's output and the diff. The log now keeps turnloop's text; the SDK face words it its
// own way on its wire and in its own model requests.

const fixture = fixtureForEachTest();
const run = promisify(execFile);
const INTERRUPTED = "The execution of this tool, or a previous tool was interrupted.";

test("a command cancelled and an edit made through the SDK: the log keeps the output and the diff, the app and its model get Copilot's words", async () => {
  const path = join(fixture.cwd, "notes.txt");
  await writeFile(path, "one\ntwo\n");
  fixture.model.enqueue(
    callingTools(["call_edit", "edit", { path, old_str: "two", new_str: "2" }]),
    { text: "Edited." },
    callingTools(["call_sleep", "bash", { command: "echo begin; sleep 60" }]),
    { text: "Recovered." },
    { text: "Went on." },
  );
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const completed: Array<{ toolCallId: string; result?: unknown; error?: unknown }> = [];
  const fieldNames: string[][] = [];
  session.on((event) => {
    if (event.type === "tool.execution_complete") {
      const { toolCallId, result, error } = event.data;
      completed.push({ toolCallId, result, ...(error === undefined ? {} : { error }) });
      fieldNames.push(Object.keys(event.data).sort());
    }
  });
  await session.sendAndWait({ prompt: "Edit it." });
  const begun = nextEvent(
    session,
    (event) =>
      event.type === "tool.execution_partial_result" && event.data.partialOutput.includes("begin"),
  );
  await session.send({ prompt: "Sleep." });
  await begun;
  await session.abort();
  await session.sendAndWait({ prompt: "Go on." });
  const { sessionId } = session;
  await session.disconnect();

  const diff = `File ${path} updated with changes.\n\n@@ -1,2 +1,2 @@\n one\n-two\n+2`;
  const cancelled = `begin\nCommand cancelled; its process group was killed.\n[cancelled by the user]`;
  // The app: Copilot's words, turnloop's text beside them.
  expect(completed).toEqual([
    {
      toolCallId: "call_edit",
      result: { content: `File ${path} updated with changes.`, detailedContent: diff },
    },
    {
      toolCallId: "call_sleep",
      result: { content: INTERRUPTED },
      error: { message: cancelled, code: "cancelled" },
    },
  ]);
  // Copilot's fields only: not the whole file before and after that the log keeps for ACP's diff.
  expect(fieldNames).toEqual([
    ["knownFile", "result", "success", "toolCallId", "toolName"],
    ["error", "result", "success", "toolCallId", "toolName"],
  ]);
  // The SDK face's model: Copilot's words.
  const toolMessages = (index: number) =>
    chatBody(fixture.model.requests.at(index)).messages.flatMap((message) =>
      message.role === "tool" ? [[message.tool_call_id, message.content]] : [],
    );
  expect(toolMessages(-1)).toEqual([
    ["call_edit", `File ${path} updated with changes.`],
    ["call_sleep", INTERRUPTED],
  ]);
  // The log: turnloop's text, as every other face stores it.
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  const results = log
    .split("\n")
    .filter((line) => line.includes('"type":"tool.execution_complete"'))
    .map((line) => (JSON.parse(line) as { data: { result: { content: string } } }).data.result);
  expect(results).toEqual([{ content: diff }, { content: cancelled }]);
  // Another face reads the output and the diff: `sessions show`, and `-p --resume`'s model.
  const shown = await run(process.execPath, [CLI_PATH, "sessions", "show", sessionId], {
    env: fixture.env,
  });
  expect(shown.stdout).toContain("begin\n");
  expect(shown.stdout).toContain("    1   one\n    2 - two\n    2 + 2\n");
  await run(process.execPath, [CLI_PATH, "-p", "More.", "--resume", sessionId], {
    env: fixture.env,
    cwd: fixture.cwd,
  });
  expect(toolMessages(-1)).toEqual([
    ["call_edit", diff],
    ["call_sleep", cancelled],
  ]);
});
