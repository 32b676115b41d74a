import { describe, expect, it } from "vitest";
import { renderConversation } from "../../src/cli/render.js";
import type { EventInput } from "../../src/events/events.js";
import { createEnvelope } from "../../src/session/event-log.js";
import { buildEvents, sessionStart, userMessage } from "../session/support.js";

const turn = (turnId: string, finishReason: "stop" | "tool-calls"): EventInput[] => [
  { type: "assistant.turn_start", data: { turnId } },
  {
    type: "assistant.turn_end",
    data: { turnId, status: "completed", finishReason },
  },
];

/** A prompt that runs a failing command, reads a file, and answers. */
function firstPrompt(): EventInput[] {
  const [start0, end0] = turn("0", "tool-calls");
  const [start1, end1] = turn("1", "stop");
  if (start0 === undefined || end0 === undefined || start1 === undefined || end1 === undefined) {
    throw new Error("unreachable");
  }
  return [
    userMessage("Why does the build fail?\nIt worked yesterday."),
    start0,
    {
      type: "assistant.message",
      data: {
        messageId: "m1",
        content: "Let me run the build and look at the config.",
        reasoning: "The user says the build broke.\nI should run it first.",
        toolRequests: [
          { toolCallId: "c1", name: "bash", arguments: { command: "npm run build" } },
          { toolCallId: "c2", name: "view", arguments: { path: "tsconfig.json" } },
        ],
        finishReason: "tool-calls",
      },
    },
    {
      type: "assistant.usage",
      data: { model: "openai:gpt-5", turnId: "0", inputTokens: 10, outputTokens: 5 },
    },
    end0,
    {
      type: "tool.execution_start",
      data: { toolCallId: "c1", toolName: "bash", arguments: { command: "npm run build" } },
    },
    {
      type: "tool.execution_complete",
      data: {
        toolCallId: "c1",
        toolName: "bash",
        success: false,
        result: {
          content:
            "src/a.ts(3,1): error TS2304\nsrc/b.ts(9,2): error TS2322\nline 3\nline 4\nline 5\nexit code 2\n",
        },
        error: { message: "exit code 2", code: "failed" },
      },
    },
    {
      type: "tool.execution_start",
      data: { toolCallId: "c2", toolName: "view", arguments: { path: "tsconfig.json" } },
    },
    {
      type: "tool.execution_complete",
      data: {
        toolCallId: "c2",
        toolName: "view",
        success: true,
        result: { content: '{ "strict": true }' },
      },
    },
    start1,
    {
      type: "assistant.message",
      data: {
        messageId: "m2",
        content: "Two type errors: `a.ts` uses an undefined name.\nFix that first.",
        toolRequests: [],
        finishReason: "stop",
      },
    },
    end1,
  ];
}

/** An autopilot prompt: a nudge, then task_complete. */
function autopilotPrompt(): EventInput[] {
  return [
    userMessage("Fix it"),
    { type: "assistant.turn_start", data: { turnId: "0" } },
    {
      type: "assistant.message",
      data: {
        messageId: "m3",
        content: "I think it is fixed.",
        toolRequests: [],
        finishReason: "stop",
      },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "0", status: "completed", finishReason: "stop" },
    },
    {
      type: "user.message",
      data: {
        content: "Keep working until the task is really done, then call task_complete.\nMore text.",
        source: "autopilot",
      },
    },
    { type: "assistant.turn_start", data: { turnId: "1" } },
    {
      type: "assistant.message",
      data: {
        messageId: "m4",
        content: "",
        toolRequests: [
          { toolCallId: "c3", name: "task_complete", arguments: { summary: "Fixed a.ts" } },
        ],
        finishReason: "tool-calls",
      },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "1", status: "completed", finishReason: "tool-calls" },
    },
    {
      type: "tool.execution_complete",
      data: {
        toolCallId: "c3",
        toolName: "task_complete",
        success: true,
        result: { content: "Done." },
      },
    },
    { type: "session.task_complete", data: { summary: "Fixed a.ts", success: true } },
  ];
}

/** A cancelled prompt, a failed prompt, and one cut off by a crash with a call left open. */
function unhappyPrompts(): EventInput[] {
  return [
    userMessage("Run the slow tests"),
    { type: "assistant.turn_start", data: { turnId: "0" } },
    {
      type: "assistant.message",
      data: {
        messageId: "m5",
        content: "",
        toolRequests: [{ toolCallId: "c4", name: "bash", arguments: { command: "sleep 60" } }],
        finishReason: "tool-calls",
      },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "0", status: "completed", finishReason: "tool-calls" },
    },
    {
      type: "tool.execution_complete",
      data: {
        toolCallId: "c4",
        toolName: "bash",
        success: false,
        result: { content: "The user cancelled this tool call." },
        error: { message: "cancelled", code: "interrupted" },
      },
    },
    { type: "abort", data: { reason: "user cancelled" } },
    userMessage("Hello?"),
    {
      type: "assistant.retry",
      data: {
        turnId: "0",
        attempt: 1,
        statusCode: 429,
        errorType: "rate_limit",
        errorMessage: "Too many requests",
        delayMs: 2000,
      },
    },
    {
      type: "session.error",
      data: { errorType: "rate_limit", message: "Rate limited after 3 attempts", statusCode: 429 },
    },
    userMessage("Try again"),
    { type: "assistant.turn_start", data: { turnId: "0" } },
    {
      type: "assistant.message",
      data: {
        messageId: "m6",
        content: "",
        toolRequests: [
          {
            toolCallId: "c5",
            name: "bash",
            arguments: { command: "npm test", description: "Run tests ".repeat(8) },
          },
        ],
        finishReason: "tool-calls",
      },
    },
  ];
}

describe("renderConversation", () => {
  it("renders prompts, tool calls with results, failures and stops as plain text", () => {
    const events = buildEvents([
      sessionStart("s1"),
      ...firstPrompt(),
      ...autopilotPrompt(),
      ...unhappyPrompts(),
    ]);
    expect(renderConversation(events)).toBe(EXPECTED);
  });

  it("takes the stop from session.idle when the events are live ones", () => {
    const events = buildEvents([userMessage("hi")]);
    const idle = createEnvelope(
      { type: "session.idle", data: { stopReason: "max_turn_requests" } },
      null,
    );
    expect(renderConversation([...events, idle])).toBe("> hi\n[stop: max_turn_requests]\n");
  });

  it("an autopilot stop counts its continues in words that agree", () => {
    const stopped = (continues: number) =>
      renderConversation(
        buildEvents([
          userMessage("go"),
          { type: "session.autopilot_stopped", data: { reason: "cap_reached", continues } },
        ]),
      );
    expect([stopped(1), stopped(3)]).toEqual([
      "> go\nautopilot stopped after 1 continue: the task was not marked complete\n[no stop recorded]\n",
      "> go\nautopilot stopped after 3 continues: the task was not marked complete\n[no stop recorded]\n",
    ]);
  });

  it("renders plans (the update_plan call only as its checklist), compactions and resumes", () => {
    const plan = { entries: [{ content: "Write the fix", status: "in_progress" }] };
    const events = buildEvents([
      userMessage("Plan it"),
      {
        type: "assistant.message",
        data: {
          messageId: "m9",
          content: "",
          toolRequests: [{ toolCallId: "p1", name: "update_plan", arguments: plan }],
          finishReason: "tool-calls",
        },
      },
      {
        type: "tool.execution_start",
        data: { toolCallId: "p1", toolName: "update_plan", arguments: plan },
      },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "p1",
          toolName: "update_plan",
          success: true,
          result: { content: "[~] Write the fix" },
        },
      },
      {
        type: "session.plan_updated",
        data: {
          entries: [
            { content: "Read the code", priority: "high", status: "completed" },
            { content: "Write the fix", priority: "high", status: "in_progress" },
            { content: "Run the tests", priority: "medium", status: "pending" },
          ],
        },
      },
      {
        type: "session.compaction_start",
        data: { trigger: "threshold", currentTokens: 9000, tokenLimit: 10000 },
      },
      {
        type: "session.compaction_complete",
        data: {
          success: true,
          trigger: "threshold",
          preCompactionTokens: 9000,
          postCompactionTokens: 1200,
          messagesRemoved: 2,
          summaryContent: "…",
        },
      },
      {
        type: "session.resume",
        data: {
          resumeTime: "2026-03-01T12:00:00.000Z",
          eventCount: 4,
          repaired: [{ line: 5, offset: 900, length: 17, reason: "torn_tail" }],
        },
      },
      userMessage("Go on"),
    ]);
    expect(renderConversation(events)).toBe(
      [
        "> Plan it",
        "plan:",
        "  ☑ Read the code",
        "  ◐ Write the fix",
        "  ☐ Run the tests",
        "compacted: 9000 → 1200 tokens",
        // The summary the model works from on (trial 43's second developer, F7).
        "summary:",
        "  …",
        "[no stop recorded]",
        "",
        "— resumed 2026-03-01T12:00:00.000Z (skipped 1 damaged line)",
        "",
        "> Go on",
        "[no stop recorded]",
        "",
      ].join("\n"),
    );
  });

  it("renders nothing for no events", () => {
    expect(renderConversation([])).toBe("");
  });
});

const EXPECTED = [
  "session s1 · openai:gpt-5 · /work/project · started 2026-03-01T10:00:00.000Z",
  "",
  "> Why does the build fail?",
  "> It worked yesterday.",
  "  (thinking) The user says the build broke.…",
  "Let me run the build and look at the config.",
  '→ bash(command: "npm run build") ✗ failed (1 s)',
  "    src/a.ts(3,1): error TS2304",
  "    src/b.ts(9,2): error TS2322",
  "    line 3",
  "    … 3 more lines (turnloop sessions export s1 --format markdown shows all)",
  '→ view(path: "tsconfig.json") ✓ (1 s)',
  '    { "strict": true }',
  "Two type errors: `a.ts` uses an undefined name.",
  "Fix that first.",
  "[stop: end_turn]",
  "",
  "> Fix it",
  "I think it is fixed.",
  "> [autopilot] Keep working until the task is really done, then call task_complete.…",
  '→ task_complete(summary: "Fixed a.ts") ✓',
  "    Done.",
  "task complete: Fixed a.ts",
  "[stop: end_turn]",
  "",
  "> Run the slow tests",
  '→ bash(command: "sleep 60") ⊘ interrupted',
  "    The user cancelled this tool call.",
  "aborted: user cancelled",
  "[stop: cancelled]",
  "",
  "> Hello?",
  "↻ retry 1 in 2 s: Too many requests",
  "error (rate_limit, 429): Rate limited after 3 attempts",
  "[stop: error]",
  "",
  "> Try again",
  '→ bash(command: "npm test", description: "Run tests Run tests Run …) … no result',
  "[no stop recorded]",
  "",
].join("\n");
