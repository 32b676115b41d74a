/**
 * The JSON Schema specifications the model is offered for the tools, converted from each tool's
 * zod input schema once and kept.
 */

import { z } from "zod";
import type { JsonObject } from "../events/events.js";
import type { ToolSpecification } from "../llm/provider.js";
import type { AnyTool } from "../tools/define-tool.js";

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
    const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.input, {
      io: "input",
      unrepresentable: "any",
    }) as JsonObject;
    specification = { name: tool.name, description: tool.description, inputSchema };
    byText.set(key, specification);
  }
  return specification;
}
