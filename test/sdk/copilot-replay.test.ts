import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  approveAll,
  CopilotClient,
  defineTool,
  RuntimeConnection,
  type SessionConfig,
} from "@github/copilot-sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import {
  loadTranscript,
  transcriptResponder,
  transcriptsDirectory,
} from "../support/transcripts.js";
import { type Fixture, requestMessages, startFixture } from "./support.js";

/**
 * Recorded Copilot SDK conversations (claude-sonnet-4.5) replayed through the official
 * `@github/copilot-sdk` driving turnloop: the app side (custom tools, permission handler, hooks)
 * is what the recorded test did, and the recorded final answers must come back.
 */
const directory = transcriptsDirectory();

interface Scenario {
  file: string;
  prompts: string[];
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
];

let fixture: Fixture;
let client: CopilotClient;

beforeAll(async () => {
  fixture = await startFixture();
  client = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env }),
    workingDirectory: fixture.cwd,
  });
  await client.start();
});
afterAll(async () => {
  await client.stop();
  await fixture.close();
});

describe.skipIf(directory === undefined)("recorded conversations through the Copilot SDK", () => {
  test.each(SCENARIOS.map((scenario) => [scenario.file, scenario] as const))(
    "%s",
    async (file, scenario) => {
      for (const [path, content] of Object.entries(scenario.files ?? {})) {
        await writeFile(join(fixture.cwd, path), content);
      }
      const transcript = loadTranscript(join(directory ?? "", file), { workdir: fixture.cwd });
      fixture.model.setResponder(transcriptResponder(transcript));
      const session = await client.createSession({
        ...scenario.config,
        model: "claude-sonnet-4.5",
        provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
      });
      const answers: string[] = [];
      for (const prompt of scenario.prompts) {
        const reply = await session.sendAndWait({ prompt }, 15_000);
        answers.push(reply?.data.content ?? "");
      }
      const longest = transcript.conversations.reduce((a, b) => (b.length > a.length ? b : a));
      const recorded = longest.filter(
        (message) => message.role === "assistant" && (message.toolCalls ?? []).length === 0,
      );
      expect(answers).toEqual(recorded.map((message) => message.content).slice(-answers.length));
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
