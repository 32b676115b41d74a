/**
 * The JSON Schema specifications the model is offered for the tools, converted from each tool's
 * zod input schema once and kept. The built-in tools' schemas come converted
 * (src/tools/input-json-schemas.ts, written by scripts/input-json-schemas.mjs): a run's first
 * model request does not wait for zod's converter (issue 26).
 */

import { z } from "zod";
import type { JsonObject } from "../events/events.js";
import type { ToolSpecification } from "../llm/provider.js";
import type { AnyTool } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import { BUILTIN_INPUT_JSON_SCHEMAS } from "../tools/input-json-schemas.js";
import type { AgentSettings } from "./loop-types.js";

const specificationCache = new WeakMap<AnyTool, ToolSpecification>();

/**
 * Specifications by input schema, then by name and description: the tool objects of a built-in
 * tool differ between sessions (each wraps it for its hooks and gate) but share its schema, so
 * a server's sessions share one specification (and its token estimate) instead of converting
 * the schema again for each session (issue 26, figure 7d).
 */
const specificationsBySchema = new WeakMap<object, Map<string, ToolSpecification>>();

/** JSON Schema specifications of the tools, computed once per input schema, name and description. */
export function toolSpecifications(tools: readonly AnyTool[]): ToolSpecification[] {
  return tools.map((tool) => {
    let specification = specificationCache.get(tool);
    if (specification === undefined) {
      specification = sharedSpecification(tool);
      specificationCache.set(tool, specification);
    }
    return specification;
  });
}

function sharedSpecification(tool: AnyTool): ToolSpecification {
  let byText = specificationsBySchema.get(tool.input);
  if (byText === undefined) {
    byText = new Map();
    specificationsBySchema.set(tool.input, byText);
  }
  const key = `${tool.name}\n${tool.description}`;
  let specification = byText.get(key);
  if (specification === undefined) {
    const inputSchema = builtinInputSchema(tool.input) ?? converted(tool.input);
    specification = { name: tool.name, description: tool.description, inputSchema };
    byText.set(key, specification);
  }
  return specification;
}

/** The built-in tools' converted schemas, by their zod schema (the object, not the tool's name). */
let builtinSchemas: WeakMap<object, JsonObject> | undefined;

/** The converted schema when `input` is a built-in tool's own zod schema; `undefined` otherwise. */
function builtinInputSchema(input: object): JsonObject | undefined {
  if (builtinSchemas === undefined) {
    builtinSchemas = new WeakMap();
    for (const tool of builtinTools()) {
      const schema = BUILTIN_INPUT_JSON_SCHEMAS[tool.name];
      if (schema !== undefined) {
        builtinSchemas.set(tool.input, schema);
      }
    }
  }
  return builtinSchemas.get(input);
}

/** `input` as JSON Schema, without its `$schema`. */
function converted(input: AnyTool["input"]): JsonObject {
  const { $schema: _schema, ...inputSchema } = z.toJSONSchema(input, {
    io: "input",
    unrepresentable: "any",
  }) as JsonObject;
  return inputSchema;
}

/**
 * The tools a model request offers: `fixedTools`, then the changing ones (MCP servers'), as the
 * face chooses among them (`AgentSettings.offerTools`).
 */
export function offeredTools(
  settings: Pick<AgentSettings, "changingTools" | "offerTools">,
  fixedTools: readonly AnyTool[],
): readonly AnyTool[] {
  const available = [...fixedTools, ...(settings.changingTools?.() ?? [])];
  return settings.offerTools?.(available) ?? available;
}
