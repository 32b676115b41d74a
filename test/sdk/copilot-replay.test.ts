import { join } from "node:path";
import {
  approveAll,
  type CopilotClient,
  defineTool,
  type MessageOptions,
  type SessionConfig,
} from "@github/copilot-sdk";
import { beforeAll, describe, expect, test } from "vitest";
import { mergeAssistants } from "../support/normalise-request.js";
import {
  setUpRecording,
  transcriptResponder,
  transcriptsDirectory,
} from "../support/transcripts.js";
import { fixtureForFile, requestMessages, startCopilotClient } from "./support.js";

/**
 * Recorded Copilot SDK conversations (claude-sonnet-4.5) replayed through the official
 * `@github/copilot-sdk` driving turnloop: the app side (custom tools, permission handler, hooks,
 * attachments) is what the recorded test did; a reply recorded as several assistant messages is
 * served as several `choices[]`, as the Copilot API sent it; the recorded final answers must come
 * back, and user messages must equal the recorded ones (the matcher compares them exactly).
 *
 * Coverage of `../shared/transcripts/copilot-sdk/` (directories with core-behaviour recordings):
 *
 * | directory | replayed here | why not (the rest) |
 * |---|---|---|
 * | session | stateful conversation, availableTools, file / directory / selection attachments | blob: blob-attachments.test.ts (the recorded message holds an image part, which this matcher of text does not compare); the rest never reach the model or need GitHub (metadata, list, log: copilot-classes.test.ts) |
 * | multi_turn | both | |
 * | tools | parallel custom tools, a throwing tool | others use Copilot-only tools (sql, skill, task) |
 * | tool_results | denied, rejected (the prompt ends) | structured/telemetry results check Copilot's telemetry |
 * | permissions | handler that cannot ask | concurrent prompts: copilot-classes.test.ts; others replay the same exchanges |
 * | hooks | preToolUse deny | the other hook recordings are the same exchange as tools/ |
 * | builtin_tools | edit then view | shell output markers differ (`<exited with exit code 0>`) |
 * | abort, compaction, mcp*, skills, subagent_hooks, rpc_*, customagents, canvas, session_fs*, telemetry, … | no | cancellation timing (abort), other lanes (compaction, MCP), or out of scope (agents, canvas, GitHub, telemetry) |
 */
const directory = transcriptsDirectory();

interface Scenario {
  file: string;
  prompts: Array<string | MessageOptions>;
  /** The recording ends with a tool call: turnloop must not ask the model again either. */
  endsAfterTool?: boolean;
  files?: Record<string, string>;
  config: Omit<SessionConfig, "model" | "provider">;
  /** Tool results turnloop must give exactly as recorded, by tool name. */
  exactResults?: string[];
}

const SCENARIOS: Scenario[] = [
  {
    file: "session/should_have_stateful_conversation.yaml",
    prompts: ["What is 1+1?", "Now if you double that, what do you get?"],
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "multi_turn/should_use_tool_results_from_previous_turns.yaml",
    prompts: [
      "Read the file 'secret.txt' and tell me what the magic number is.",
      "What is that magic number multiplied by 2?",
    ],
    files: { "secret.txt": "The magic number is 42." },
    config: { onPermissionRequest: approveAll },
    exactResults: ["view"],
  },
  {
    file: "tools/should_execute_multiple_custom_tools_in_parallel_single_turn.yaml",
    prompts: [
      "Use lookup_city with 'Paris' and lookup_country with 'France' at the same time, then combine both results in your reply.",
    ],
    config: {
      onPermissionRequest: approveAll,
      tools: [
        defineTool("lookup_city", {
          parameters: { type: "object", properties: { city: { type: "string" } } },
          handler: async (args: { city: string }) => `CITY_${args.city.toUpperCase()}`,
        }),
        defineTool("lookup_country", {
          parameters: { type: "object", properties: { country: { type: "string" } } },
          handler: async (args: { country: string }) => `COUNTRY_${args.country.toUpperCase()}`,
        }),
      ],
    },
    exactResults: ["lookup_city", "lookup_country"],
  },
  {
    file: "tools/handles_tool_calling_errors.yaml",
    prompts: ["What is my location? If you can't find out, just say 'unknown'."],
    config: {
      onPermissionRequest: approveAll,
      tools: [
        defineTool("get_user_location", {
          parameters: { type: "object", properties: {} },
          handler: () => {
            throw new Error("Tool execution failed");
          },
        }),
      ],
    },
  },
  {
    file: "permissions/should_deny_tool_operations_when_handler_explicitly_denies.yaml",
    prompts: ["Run 'node --version'"],
    // The recording's handler could not ask anyone: the model gets Copilot's text and goes on.
    config: { onPermissionRequest: () => ({ kind: "user-not-available" }) },
    exactResults: ["bash"],
  },
  {
    file: "hooks/should_deny_tool_execution_when_pretooluse_returns_deny.yaml",
    prompts: ["Edit protected.txt and replace 'Original' with 'Modified'"],
    files: { "protected.txt": "Original content" },
    config: {
      onPermissionRequest: approveAll,
      hooks: { onPreToolUse: async () => ({ permissionDecision: "deny" }) },
    },
  },
  {
    file: "multi_turn/should_handle_file_creation_then_reading_across_turns.yaml",
    prompts: [
      "Create a file called 'greeting.txt' with the content 'Hello from multi-turn test'.",
      "Read the file 'greeting.txt' and tell me its exact contents.",
    ],
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "builtin_tools/should_edit_a_file_successfully.yaml",
    prompts: [
      "Edit the file 'edit_me.txt': replace 'Hello World' with 'Hi Universe'. Then read it back and tell me its contents.",
    ],
    files: { "edit_me.txt": "Hello World\nGoodbye World\n" },
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "session/should_create_a_session_with_availabletools.yaml",
    prompts: ["What is 1+1?"],
    config: { onPermissionRequest: approveAll, availableTools: ["view", "edit"] },
  },
  {
    file: "session/should_send_with_file_attachment.yaml",
    prompts: [
      {
        prompt: "Read the attached file and reply with its contents.",
        // The recorded test forwards a lineRange (not in the SDK's attachment type).
        attachments: [
          { type: "file", path: "attached-file.txt", lineRange: { start: 1, end: 1 } } as never,
        ],
      },
    ],
    files: { "attached-file.txt": "FILE_ATTACHMENT_SENTINEL" },
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "session/should_send_with_directory_attachment.yaml",
    prompts: [
      {
        prompt: "List the attached directory.",
        attachments: [{ type: "directory", path: "attached-directory" }],
      },
    ],
    files: { "attached-directory/readme.txt": "inside" },
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "session/should_send_with_selection_attachment.yaml",
    prompts: [
      {
        prompt: "Summarize the selected code.",
        attachments: [
          {
            type: "selection",
            filePath: "selected-file.cs",
            displayName: "selected-file.cs",
            selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 37 } },
            text: 'string Value = "SELECTION_SENTINEL";',
          },
        ],
      },
    ],
    config: { onPermissionRequest: approveAll },
  },
  {
    file: "tool_results/should_handle_tool_result_with_denied_resulttype.yaml",
    prompts: [
      "Use access_secret to get the API key. If access is denied, tell me it was 'access denied'.",
    ],
    config: {
      onPermissionRequest: approveAll,
      tools: [
        defineTool("access_secret", {
          parameters: { type: "object", properties: {} },
          handler: () => ({
            textResultForLlm: "Access denied: insufficient permissions to read secrets",
            resultType: "denied",
          }),
        }),
      ],
    },
    exactResults: ["access_secret"],
  },
  {
    file: "tool_results/should_handle_tool_result_with_rejected_resulttype.yaml",
    prompts: [
      "Deploy the service using deploy_service. If it's rejected, tell me it was 'rejected by policy'.",
    ],
    endsAfterTool: true,
    config: {
      onPermissionRequest: approveAll,
      tools: [
        defineTool("deploy_service", {
          parameters: { type: "object", properties: {} },
          handler: () => ({
            textResultForLlm: "Deployment rejected by policy",
            resultType: "rejected",
          }),
        }),
      ],
    },
  },
];

/** Attachment paths as the recorded test gave them: absolute, under the working directory. */
function absolute(options: MessageOptions, cwd: string): MessageOptions {
  const attachments = options.attachments?.map((attachment) =>
    "path" in attachment
      ? { ...attachment, path: join(cwd, attachment.path) }
      : "filePath" in attachment
        ? { ...attachment, filePath: join(cwd, attachment.filePath) }
        : attachment,
  );
  return { ...options, ...(attachments === undefined ? {} : { attachments }) };
}

const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  client = await startCopilotClient(fixture, []);
});

describe.skipIf(directory === undefined)("recorded conversations through the Copilot SDK", () => {
  test.each(SCENARIOS.map((scenario) => [scenario.file, scenario] as const))(
    "%s",
    async (file, scenario) => {
      const transcript = await setUpRecording(file, scenario.files ?? {}, fixture.cwd);
      fixture.model.setResponder(transcriptResponder(transcript, { splitChoices: true }));
      const requestsBefore = fixture.model.requests.length;
      const session = await client.createSession({
        ...scenario.config,
        model: "claude-sonnet-4.5",
        provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
      });
      const answers: string[] = [];
      for (const prompt of scenario.prompts) {
        const options = typeof prompt === "string" ? { prompt } : absolute(prompt, fixture.cwd);
        const reply = await session.sendAndWait(options, 15_000);
        answers.push(reply?.data.content ?? "");
      }
      const longest = transcript.conversations.reduce((a, b) => (b.length > a.length ? b : a));
      // One model request per recorded reply, and no more: a prompt that ended is not retried.
      const replies = mergeAssistants(longest).filter((message) => message.role === "assistant");
      expect(fixture.model.requests.length - requestsBefore).toBe(replies.length);
      const recorded = mergeAssistants(longest).filter(
        (message) => message.role === "assistant" && (message.toolCalls ?? []).length === 0,
      );
      if (!scenario.endsAfterTool) {
        expect(answers).toEqual(recorded.map((message) => message.content).slice(-answers.length));
      }
      const received = requestMessages(fixture.model, -1);
      for (const name of scenario.exactResults ?? []) {
        const calls = received.flatMap((message) =>
          message.role === "assistant"
            ? ((message.tool_calls as Array<{ id: string; function: { name: string } }>) ?? [])
            : [],
        );
        const call = calls.find((candidate) => candidate.function.name === name);
        const result = received.find(
          (message) => message.role === "tool" && message.tool_call_id === call?.id,
        );
        const expected = longest.find(
          (message) => message.role === "tool" && message.toolCallId === call?.id,
        );
        expect(result?.content, name).toBe(expected?.content);
      }
      await session.disconnect();
      fixture.model.setResponder(undefined);
    },
  );
});
