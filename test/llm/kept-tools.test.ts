/**
 * Issue 26: an OpenAI-compatible model's tool definitions are serialised once per tool set
 * (src/llm/kept-tools.ts), and every body is still byte for byte the AI SDK's as the tools change:
 * a tool added (an MCP server's list growing), one taken away, a schema or a description changed,
 * no tools at all, and the first set again.
 */

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { toFunctionTools } from "../../src/llm/convert.js";
import { withHugeBodies } from "../../src/llm/huge-messages.js";
import type { ToolSpecification } from "../../src/llm/provider.js";
import { withKeptMessages } from "../../src/llm/sync-chunk-validation.js";
import { differencesOver, TOOLS, toolTurn, userMessage } from "./provider-bodies.js";

const view = TOOLS[0] as ToolSpecification;
const search: ToolSpecification = {
  name: "search",
  description: "Searches the files",
  inputSchema: { type: "object", properties: { pattern: { type: "string" } } },
};

describe("an OpenAI-compatible model's tool definitions", () => {
  it("are serialised once, while the tools stay the same", async () => {
    const model = withKeptMessages(
      createOpenAICompatible({
        name: "openai-compatible",
        baseURL: "http://127.0.0.1:9/v1",
        fetch: withHugeBodies(),
      }).chatModel("fake-model"),
    ) as LanguageModelV3 & {
      getArgs(options: LanguageModelV3CallOptions): Promise<{ args: { tools?: unknown } }>;
    };
    const prompt: LanguageModelV3CallOptions["prompt"] = [
      { role: "system", content: "be brief" },
      { role: "user", content: [{ type: "text", text: "hello" }] },
    ];
    const tools = () => toFunctionTools([view, search]);
    const first = await model.getArgs({ prompt, tools: tools() });
    const second = await model.getArgs({ prompt, tools: tools() });
    // A placeholder each, which turnloop's fetch replaces with the tools' JSON.
    expect([first.args.tools, second.args.tools]).toEqual([
      expect.stringMatching(/^turnloop-huge-text-[-0-9a-f]+-\d+j~$/),
      expect.stringMatching(/^turnloop-huge-text-[-0-9a-f]+-\d+j~$/),
    ]);
  });

  it("reach the model as the SDK sends them, byte for byte, as they change", async () => {
    const changedSchema: ToolSpecification = {
      ...search,
      inputSchema: { type: "object", properties: { regex: { type: "string" } } },
    };
    const sets: ToolSpecification[][] = [
      [view],
      [view],
      // An MCP server's list grows, then a tool's schema changes, then its description.
      [view, search],
      [view, changedSchema],
      [view, { ...changedSchema, description: "Searches every file" }],
      [],
      [search],
      [view],
    ];
    const differences = await differencesOver(
      [
        [userMessage("read the notes"), ...toolTurn(1)],
        ...sets.slice(1).map((_, turn) => toolTurn(turn + 2)),
      ],
      (step) => sets[step] ?? [],
    );
    expect(differences).toEqual([]);
  }, 60_000);
});
