import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyTool } from "../../src/tools/define-tool.js";
import { builtinTools } from "../../src/tools/index.js";
import type { ChatMessage } from "../support/normalise-request.js";
import { loadTranscript, transcriptsDirectory } from "../support/transcripts.js";
import { makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

/**
 * The file tools' answers are compared with what Copilot CLI's tools answered in real recorded
 * conversations (`../shared/transcripts/copilot-sdk`): each recorded `view`/`create`/`edit` call
 * is run, in order, on the files the conversation started from.
 */
const transcripts = transcriptsDirectory();

interface Scenario {
  file: string;
  /** Files present before the conversation (relative path → content). */
  files: Record<string, string>;
  /** Files after it. */
  after: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  {
    file: "builtin_tools/should_create_a_new_file.yaml",
    files: {},
    after: { "new_file.txt": "Created by test" },
  },
  {
    file: "builtin_tools/should_edit_a_file_successfully.yaml",
    files: { "edit_me.txt": "Hello World\nGoodbye World\n" },
    after: { "edit_me.txt": "Hi Universe\nGoodbye World\n" },
  },
  {
    file: "multi_turn/should_handle_file_creation_then_reading_across_turns.yaml",
    files: {},
    after: { "greeting.txt": "Hello from multi-turn test" },
  },
  {
    file: "permissions/should_invoke_permission_handler_for_write_operations.yaml",
    files: { "test.txt": "original content" },
    after: { "test.txt": "modified content" },
  },
  {
    file: "rewind/should_restore_tracked_file_and_conversation.yaml",
    files: {},
    after: { "rewind-sdk.txt": "SDK rewind content" },
  },
  {
    file: "multi_client/one_client_approves_permission_and_both_see_the_result.yaml",
    files: {},
    after: { "hello.txt": "hello world" },
  },
];

let directory = "";
useTemporaryDirectory((path) => {
  directory = path;
});

/** Recorded calls of the tools in `tools`, in conversation order, each with its recorded result. */
function recordedCalls(messages: readonly ChatMessage[], tools: ReadonlyMap<string, AnyTool>) {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "tool" && message.toolCallId !== undefined) {
      results.set(message.toolCallId, message.content);
    }
  }
  return messages.flatMap((message) =>
    (message.toolCalls ?? []).flatMap((call) => {
      const tool = tools.get(call.name);
      const recorded = results.get(call.id);
      if (tool === undefined || recorded === undefined) {
        return [];
      }
      const args: Record<string, unknown> = JSON.parse(call.arguments);
      return [{ tool, args, recorded }];
    }),
  );
}

describe.skipIf(transcripts === undefined)(
  "file tools answer as in the recorded conversations",
  () => {
    it.each(SCENARIOS)("$file", async (scenario) => {
      for (const [path, content] of Object.entries(scenario.files)) {
        await writeFile(join(directory, path), content);
      }
      const transcript = loadTranscript(join(transcripts ?? "", scenario.file), {
        workdir: directory,
      });
      const longest = transcript.conversations.reduce((a, b) => (b.length > a.length ? b : a));
      const tools = new Map(
        builtinTools()
          .filter((tool) => ["view", "create", "edit"].includes(tool.name))
          .map((tool) => [tool.name, tool] as const),
      );
      const calls = recordedCalls(longest, tools);
      expect(calls.length).toBeGreaterThan(0);
      for (const { tool, args, recorded } of calls) {
        const result = await runTool(tool, args, makeContext(directory));
        expect(result.isError).toBe(false);
        if (tool.name === "edit") {
          // Ours adds a diff after the recorded sentence, separated by a blank line.
          expect(result.content.split("\n\n")[0]).toBe(recorded);
          expect(result.content).toMatch(/\n\n@@ -\d+,\d+ \+\d+,\d+ @@\n/);
        } else if (tool.name === "view") {
          // The recorded CLI numbered an empty line after a final newline (`3.` after a 2-line
          // file); ours numbers the file's lines only.
          expect(result.content).toBe(recorded.replace(/\n\d+\.$/, ""));
        } else {
          expect(result.content).toBe(recorded);
        }
      }
      for (const [path, content] of Object.entries(scenario.after)) {
        expect(await readFile(join(directory, path), "utf8")).toBe(content);
      }
    });
  },
);

describe("builtinTools", () => {
  it("lists the tools in Copilot CLI's order, each with a scope", () => {
    const tools = builtinTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "view",
      "create",
      "edit",
      "grep",
      "glob",
      "bash",
      "update_plan",
    ]);
    expect(tools.every((tool) => tool.scope !== undefined)).toBe(true);
    expect(tools.filter((tool) => tool.mutates).map((tool) => tool.name)).toEqual([
      "create",
      "edit",
      "bash",
    ]);
  });
});
