import { describe, expect, test } from "vitest";
import { z } from "zod";
import { toolSpecifications } from "../../src/agent/tool-specifications.js";
import type { AnyTool } from "../../src/tools/define-tool.js";
import { builtinTools } from "../../src/tools/index.js";
import { BUILTIN_INPUT_JSON_SCHEMAS } from "../../src/tools/input-json-schemas.js";

/** A tool object of its own around `tool`, as a server session's hooks and gate wrap each tool. */
function wrapped(tool: AnyTool): AnyTool {
  return { ...tool, execute: (input, context) => tool.execute(input, context) };
}

/** The specification as converted on its own, without any kept one. */
function converted(tool: AnyTool) {
  const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.input, {
    io: "input",
    unrepresentable: "any",
  });
  return { name: tool.name, description: tool.description, inputSchema };
}

describe("toolSpecifications", () => {
  test("each tool's name, description and input schema as JSON Schema", () => {
    const tools = builtinTools();
    expect(toolSpecifications(tools)).toEqual(tools.map(converted));
  });

  test("the built-in tools' kept schemas are zod's conversion, byte for byte", () => {
    // src/tools/input-json-schemas.ts is written by scripts/input-json-schemas.mjs: run it (after
    // `npm run build`) when a built-in tool's input schema changes.
    const tools = builtinTools();
    expect(Object.keys(BUILTIN_INPUT_JSON_SCHEMAS)).toEqual(tools.map((tool) => tool.name));
    expect(JSON.stringify(toolSpecifications(tools))).toBe(JSON.stringify(tools.map(converted)));
  });

  test("the built-in tools' zod schemas wait for a first parse, except view's (issue 26)", () => {
    // Offering the tools reads only input-json-schemas.ts; a schema is built when a call of its
    // tool is validated (z.lazy). view's is built at load (src/tools/view.ts).
    const atLoad = builtinTools().filter((tool) => tool.input._zod.def.type !== "lazy");
    expect(atLoad.map((tool) => tool.name)).toEqual(["view"]);
  });

  test("a tool named like a built-in, with a schema of its own, gets its own conversion", () => {
    const [view] = builtinTools();
    if (view === undefined) {
      throw new Error("no built-in tools");
    }
    const own = { ...view, input: z.object({ file: z.string(), lines: z.number().optional() }) };
    expect(toolSpecifications([own])).toEqual([converted(own)]);
    expect(toolSpecifications([own])[0]?.inputSchema).toEqual({
      type: "object",
      properties: { file: { type: "string" }, lines: { type: "number" } },
      required: ["file"],
    });
  });

  test("tool objects of different sessions sharing a schema share one specification", () => {
    const first = builtinTools().map(wrapped);
    const second = builtinTools().map(wrapped);
    const specifications = toolSpecifications(first);
    const again = toolSpecifications(second);
    expect(again).toEqual(builtinTools().map(converted));
    expect(again.map((specification, index) => specification === specifications[index])).toEqual(
      builtinTools().map(() => true),
    );
  });

  test("a tool with the same schema but another name or description gets its own", () => {
    const [view] = builtinTools();
    if (view === undefined) {
      throw new Error("no built-in tools");
    }
    const renamed = { ...view, name: "look" };
    const described = { ...view, description: "Shows a file." };
    const specifications = toolSpecifications([view, renamed, described]);
    expect(specifications).toEqual([view, renamed, described].map(converted));
    expect(new Set(specifications).size).toBe(3);
  });
});
