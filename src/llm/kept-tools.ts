/**
 * An OpenAI-compatible chat request's `tools` serialised once per tool set (issue 26, figure 3):
 * the loop offers the same tools turn after turn, and the AI SDK serialised their definitions
 * (names, descriptions, JSON Schemas: about 3.8 KB for the built-in tools) into every request's
 * body again.
 */

import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { EncodedJson } from "./encoded-json.js";
import { jsonPlaceholder } from "./huge-messages.js";

/** The tools of a call, as the AI SDK's `LanguageModelV3CallOptions` carry them. */
type CallTools = LanguageModelV3CallOptions["tools"];

/**
 * The JSON of the last tool set one model was asked with. {@link placeholderFor} gives a request
 * a placeholder of `jsonPlaceholder` (huge-messages.ts) in place of its wire `tools`, which a fetch
 * made by `withHugeBodies` replaces with their JSON; only for a model whose fetch fills in
 * placeholders (`fillsJsonPlaceholders`).
 */
export class KeptTools {
  #tools: readonly LanguageModelV3FunctionTool[] = [];
  /** Their JSON's bytes, encoded once (encoded-json.ts). */
  #json = new EncodedJson();

  /**
   * `wireTools` (the SDK's conversion of `tools` for the body, an array) as a placeholder of its
   * JSON, serialised again only when `tools` differ from the last call's: another length, or a
   * tool of another kind, name, description, `strict`, or input schema object (the loop's tool
   * specifications are kept, llm/convert.ts and agent/tool-specifications.ts, so the same tool
   * brings the same schema object; a changed list, such as an MCP server's, brings new ones).
   * Anything but an array of function tools (no tools, a provider tool) is returned as it is.
   */
  placeholderFor(tools: CallTools, wireTools: unknown, request: AbortSignal | undefined): unknown {
    if (!Array.isArray(wireTools) || tools === undefined || !tools.every(isFunctionTool)) {
      return wireTools;
    }
    if (!sameTools(this.#tools, tools)) {
      this.#json = new EncodedJson();
      this.#json.append(JSON.stringify(wireTools));
      this.#tools = tools;
    }
    return jsonPlaceholder(this.#json.snapshot(), request);
  }
}

function isFunctionTool(tool: NonNullable<CallTools>[number]): tool is LanguageModelV3FunctionTool {
  return tool.type === "function";
}

/** Whether two function tool lists would be converted to the same wire tools. */
function sameTools(
  kept: readonly LanguageModelV3FunctionTool[],
  tools: readonly LanguageModelV3FunctionTool[],
): boolean {
  if (kept.length !== tools.length || kept.length === 0) {
    return false;
  }
  return tools.every((tool, index) => {
    const other = kept[index];
    return (
      other !== undefined &&
      tool.name === other.name &&
      tool.description === other.description &&
      tool.strict === other.strict &&
      tool.inputSchema === other.inputSchema
    );
  });
}
