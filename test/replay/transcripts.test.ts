import { afterEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { builtinTools } from "../../src/tools/index.js";
import type { Wire } from "../support/fake-model-types.js";
import { type Harness, startHarness } from "../support/harness.js";
import type { ChatMessage } from "../support/normalise-request.js";
import {
  setUpRecording,
  transcriptResponder,
  transcriptsDirectory,
} from "../support/transcripts.js";

/**
 * Real model conversations (Copilot SDK snapshots, claude-sonnet-4.5) replayed through turnloop:
 * the recorded tool calls run on files the test creates, and turnloop's tool results must be what
 * the model saw when it was recorded — then the recorded final answers follow.
 */
const directory = transcriptsDirectory();

interface Scenario {
  file: string;
  files: Record<string, string>;
  prompts: string[];
  /** Tools turnloop must answer exactly as recorded (others, e.g. unknown tools, differ in wording). */
  exactTools: string[];
}

const SCENARIOS: Scenario[] = [
  {
    file: "session/should_have_stateful_conversation.yaml",
    files: {},
    prompts: ["What is 1+1?", "Now if you double that, what do you get?"],
    exactTools: [],
  },
  {
    file: "multi_turn/should_use_tool_results_from_previous_turns.yaml",
    files: { "secret.txt": "The magic number is 42." },
    prompts: [
      "Read the file 'secret.txt' and tell me what the magic number is.",
      "What is that magic number multiplied by 2?",
    ],
    exactTools: ["view"],
  },
  {
    file: "builtin_tools/should_read_file_with_line_range.yaml",
    files: { "lines.txt": "line1\nline2\nline3\nline4\nline5\n" },
    prompts: [
      "Read lines 2 through 4 of the file 'lines.txt' in this directory. Tell me what those lines contain.",
    ],
    exactTools: ["view"],
  },
  {
    file: "builtin_tools/should_find_files_by_pattern.yaml",
    files: { "src/index.ts": "export const index = 1;\n", "README.md": "# readme\n" },
    prompts: ["Find all .ts files in this directory (recursively). List the filenames you found."],
    exactTools: ["glob"],
  },
  {
    file: "builtin_tools/should_search_for_patterns_in_files.yaml",
    files: { "data.txt": "apple\nbanana\napricot\ncherry\n" },
    prompts: [
      "Search for lines starting with 'ap' in the file 'data.txt'. Tell me which lines matched.",
    ],
    exactTools: ["grep"],
  },
  {
    file: "builtin_tools/should_handle_nonexistent_file_gracefully.yaml",
    files: {},
    prompts: [
      "Try to read the file 'does_not_exist.txt'. If it doesn't exist, say 'FILE_NOT_FOUND'.",
    ],
    exactTools: ["view"],
  },
];

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function finalAnswers(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "assistant.message" && event.data.toolRequests.length === 0
      ? [event.data.content]
      : [],
  );
}

/** The recorded conversation's assistant answers without tool calls, and its tool results by call id. */
function recorded(messages: readonly ChatMessage[]) {
  const answers = messages.filter(
    (message) => message.role === "assistant" && (message.toolCalls ?? []).length === 0,
  );
  const results = new Map(
    messages.flatMap((message) =>
      message.role === "tool" && message.toolCallId !== undefined
        ? [[message.toolCallId, message.content] as const]
        : [],
    ),
  );
  return { answers: answers.map((message) => message.content), results };
}

describe.skipIf(directory === undefined)("recorded conversations replay through turnloop", () => {
  const wires: Wire[] = ["openai-chat", "anthropic", "openai-responses"];
  test.each(
    SCENARIOS.flatMap((scenario) => wires.map((wire) => [scenario.file, wire, scenario] as const)),
  )("%s over %s", async (_file, wire, scenario) => {
    harness = await startHarness({ wire, tools: builtinTools() });
    const transcript = await setUpRecording(scenario.file, scenario.files, harness.cwd);
    harness.server.setResponder(transcriptResponder(transcript));
    for (const prompt of scenario.prompts) {
      expect(await harness.prompt(prompt)).toEqual({ stopReason: "end_turn" });
    }
    const longest = transcript.conversations.reduce((a, b) => (b.length > a.length ? b : a));
    const expected = recorded(longest);
    expect(finalAnswers(harness.events)).toEqual(expected.answers);
    expect(harness.server.requests.every((request) => request.status === 200)).toBe(true);

    const completions = harness.events.flatMap((event) =>
      event.type === "tool.execution_complete" ? [event.data] : [],
    );
    for (const completion of completions) {
      if (scenario.exactTools.includes(completion.toolName)) {
        expect(completion.result.content).toBe(expected.results.get(completion.toolCallId));
      } else {
        // The model's made-up tool (report_intent) gets an error naming it and the real tools.
        expect(completion).toMatchObject({ success: false, error: { code: "unknown_tool" } });
        expect(completion.result.content).toContain(`Tool '${completion.toolName}' does not exist`);
      }
    }
    expect(
      completions.filter((completion) => scenario.exactTools.includes(completion.toolName)).length,
    ).toBe(scenario.exactTools.length);
  });
});
