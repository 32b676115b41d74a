/**
 * One recorded session read back by every reader: a `--max-turns` stop, a compaction after it
 * (whose turn lands in that prompt's span), a prompt whose stream broke off, and a cancelled one.
 * `sessions show`, the export and ACP `session/load` each say how every prompt stopped as the log
 * recorded it (the session model's one stop, session-model/types.ts PromptStop): trial r3s35 H1,
 * H3 — show said `[no stop recorded]`, the export `end_turn` (the compaction's turn), and the ACP
 * replay nothing of the stop, the failure or the cancel.
 */

import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { AcpHarness, normalise } from "../acp/support.js";
import { runCli, whenFileExists } from "../support/cli.js";
import { fakeModelEnvironment } from "../support/fixtures.js";
import { withoutToolTimes } from "../support/tool-times.js";

const bash = (id: string, command: string) => ({
  id,
  name: "bash",
  arguments: JSON.stringify({ command }),
});

async function recordSession(harness: AcpHarness): Promise<string> {
  const env = fakeModelEnvironment(harness.home, harness.server, { TURNLOOP_MAX_RETRIES: "0" });
  const run = (args: string[], onStart?: Parameters<typeof runCli>[1]["onStart"]) =>
    runCli(args, { cwd: harness.cwd, env, ...(onStart === undefined ? {} : { onStart }) });
  harness.server.enqueue({ text: "Hello." });
  const first = await run(["-p", "say hello"]);
  const sessionId = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
  harness.server.enqueue({ text: "let me run", toolCalls: [bash("call_1", "echo hi")] });
  const limited = await run([
    "-p",
    "-r",
    sessionId,
    "run it",
    "--max-turns",
    "1",
    "--allow-all-tools",
  ]);
  // The answer on stdout, as --quiet and the JSON result give it (H2).
  expect([limited.code, limited.stdout]).toEqual([2, "let me run\n"]);
  harness.server.enqueue({ text: "A summary of the conversation so far." });
  await run(["sessions", "compact", sessionId]);
  harness.server.enqueue({
    text: ["This answer ", "is cut off in the mid", "dle"],
    breakAfterEvents: 2,
  });
  const broken = await run(["-p", "-r", sessionId, "second question"]);
  expect(broken.code, broken.stderr).toBe(1);
  harness.server.enqueue({
    text: "waiting",
    toolCalls: [bash("call_2", "touch started; sleep 30")],
  });
  const cancelled = await run(
    ["-p", "-r", sessionId, "third question", "--allow-all-tools"],
    (child) => whenFileExists(join(harness.cwd, "started"), child, () => child.kill("SIGINT")),
  );
  expect(cancelled.code, cancelled.stderr).toBe(130);
  return sessionId;
}

const text = (value: string) => ({ type: "text", text: value });
const thought = (value: string, messageId: string) => ({
  sessionUpdate: "agent_thought_chunk",
  content: text(value),
  messageId,
});
const chunk = (sessionUpdate: string, value: string, messageId: string) => ({
  sessionUpdate,
  content: text(value),
  messageId,
});
const call = (toolCallId: string, command: string) => ({
  sessionUpdate: "tool_call",
  toolCallId,
  status: "pending",
  title: `Run ${command}`,
  kind: "execute",
  rawInput: { command },
  locations: [],
});
const ended = (toolCallId: string, status: string, value: string, rawOutput?: object) => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  status,
  content: [{ type: "content", content: text(value) }],
  ...(rawOutput === undefined ? {} : { rawOutput }),
});

const CUT = "the model's stream broke off: the response ended before the reply was complete";
const CANCELLED = "Command cancelled; its process group was killed.\n[cancelled by the user]";

describe("every reader says how each prompt of one recorded session stopped", () => {
  test("sessions show, the export (json, markdown), ACP session/load", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await recordSession(harness);
    const env = fakeModelEnvironment(harness.home, harness.server);
    const read = async (args: string[]) => {
      const result = await runCli(args, { cwd: harness.cwd, env });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    const resumed = expect.stringMatching(/^— resumed \S+Z$/);
    expect(withoutToolTimes(await read(["sessions", "show", sessionId])).split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^session ${sessionId} · `)),
      "",
      "> say hello",
      "Hello.",
      "[stop: end_turn]",
      "",
      resumed,
      "",
      "> run it",
      "let me run",
      '→ bash(command: "echo hi") ✓',
      "    hi",
      "[stop: max_turn_requests]",
      // `sessions compact` between prompts: set apart from the prompt before it.
      "",
      "— compaction · manual, between prompts: turnloop sessions compact, /compact or an app's session.history.compact",
      expect.stringMatching(/^compaction failed: the summary would not make the context smaller/),
      "",
      resumed,
      "",
      "> second question",
      "This answer ",
      `error (network): ${CUT}`,
      "[stop: error]",
      "",
      resumed,
      "",
      "> third question",
      "waiting",
      '→ bash(command: "touch started; sleep 30") ⊘ interrupted',
      ...CANCELLED.split("\n").map((line) => `    ${line}`),
      "aborted: cancelled by the user",
      "[stop: cancelled]",
      "",
    ]);
    const stops = ["end_turn", "max_turn_requests", "error", "cancelled"];
    const json = JSON.parse(await read(["sessions", "export", sessionId, "--format", "json"]));
    expect(json.prompts.map((prompt: { stopReason: string }) => prompt.stopReason)).toEqual(stops);
    const markdown = await read(["sessions", "export", sessionId, "--format", "markdown"]);
    expect(markdown.split("\n").filter((line) => line.startsWith("## Prompt"))).toEqual(
      stops.map((stop, index) => `## Prompt ${index + 1} · ${stop}`),
    );

    await harness.loadSession(sessionId);
    const compaction = expect.stringMatching(/^compaction-/);
    expect(normalise(harness.updatesBefore("session/load"), harness.cwd)).toEqual([
      chunk("user_message_chunk", "say hello", "message-1"),
      { sessionUpdate: "session_info_update", title: "say hello", updatedAt: "<time>" },
      chunk("agent_message_chunk", "Hello.", "message-2"),
      chunk("user_message_chunk", "run it", "message-3"),
      chunk("agent_message_chunk", "let me run", "message-4"),
      call("call_1", "echo hi"),
      ended("call_1", "completed", "hi"),
      thought("⚠ stopped: max_turn_requests\n", "message-5"),
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: compaction }),
      expect.objectContaining({ toolCallId: compaction, status: "failed" }),
      chunk("user_message_chunk", "second question", "message-6"),
      chunk("agent_message_chunk", "This answer ", "message-7"),
      thought(`✗ error: ${CUT}\n`, "message-8"),
      chunk("user_message_chunk", "third question", "message-9"),
      chunk("agent_message_chunk", "waiting", "message-10"),
      call("call_2", "touch started; sleep 30"),
      ended("call_2", "failed", CANCELLED, { error: "cancelled", outcome: "interrupted" }),
      thought("⊘ cancelled\n", "message-11"),
      { sessionUpdate: "usage_update", used: 15, size: 128000 },
    ]);
  });
});
