/**
 * Custom tools of an app: declared to the runtime in `session.create` (name, description, JSON
 * Schema) and run here when the runtime emits `external_tool.requested`.
 */

import { z } from "zod";
import type { JsonObject } from "../events/events.js";
import type { ExternalToolResult, ToolDeclaration } from "../server/protocol.js";
import type { ToolInvocation } from "./types.js";

/** A tool the app runs. Build one with {@link defineTool}. */
export interface Tool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, as sent to the runtime. */
  parameters?: JsonObject;
  /**
   * Runs a call with the arguments (validated when a zod schema was given). Returns text, a
   * Copilot `ToolResultObject` (`{textResultForLlm, resultType}`), or anything JSON-serialisable;
   * a throw becomes an error result for the model.
   */
  handler: (args: JsonObject, invocation: ToolInvocation) => unknown;
  readOnly?: boolean;
  skipPermission?: boolean;
  overridesBuiltInTool?: boolean;
}

/** {@link defineTool}'s settings; `parameters` is a zod schema (or a JSON Schema object). */
export interface ToolSettings<Schema extends z.ZodType> {
  description?: string;
  parameters?: Schema | JsonObject;
  handler: (args: z.output<Schema>, invocation: ToolInvocation) => unknown;
  /** Changes nothing outside the app: calls may run in parallel and without asking. */
  readOnly?: boolean;
  /** Run without asking for permission. */
  skipPermission?: boolean;
  /** Replace the built-in tool of the same name. */
  overridesBuiltInTool?: boolean;
}

/**
 * Declares a tool. With a zod schema the handler gets parsed arguments (a parse failure is an
 * error result the model sees), and the runtime gets `z.toJSONSchema(parameters)`.
 */
export function defineTool<Schema extends z.ZodType = z.ZodType<JsonObject>>(
  name: string,
  settings: ToolSettings<Schema>,
): Tool {
  const { parameters } = settings;
  const schema = parameters instanceof z.ZodType ? parameters : undefined;
  let declared: JsonObject | undefined;
  if (schema !== undefined) {
    const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { io: "input" }) as JsonObject;
    declared = rest;
  } else if (parameters !== undefined) {
    declared = parameters as JsonObject;
  }
  return {
    name,
    ...(settings.description === undefined ? {} : { description: settings.description }),
    ...(declared === undefined ? {} : { parameters: declared }),
    handler: (args, invocation) =>
      settings.handler(
        (schema === undefined ? args : schema.parse(args)) as z.output<Schema>,
        invocation,
      ),
    ...(settings.readOnly === undefined ? {} : { readOnly: settings.readOnly }),
    ...(settings.skipPermission === undefined ? {} : { skipPermission: settings.skipPermission }),
    ...(settings.overridesBuiltInTool === undefined
      ? {}
      : { overridesBuiltInTool: settings.overridesBuiltInTool }),
  };
}

/** The declaration sent in `session.create`. */
export function declaration(tool: Tool): ToolDeclaration {
  const { handler: _handler, ...declared } = tool;
  return declared;
}

/**
 * What a handler returned, as `handlePendingToolCall.result`: `null`/`undefined` → `""`, text as
 * is, a `{textResultForLlm}` object as is, anything else as JSON (Copilot SDK rules).
 */
export function toWireResult(value: unknown): ExternalToolResult {
  if (value === null || value === undefined) {
    return "";
  }
  if (typeof value === "string") {
    return value;
  }
  if (
    typeof value === "object" &&
    "textResultForLlm" in value &&
    typeof value.textResultForLlm === "string"
  ) {
    return value as ExternalToolResult;
  }
  return JSON.stringify(value);
}
