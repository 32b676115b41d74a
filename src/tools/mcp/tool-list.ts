/**
 * A server's `tools/list`, checked one tool at a time (trial 42 finding 10). The MCP client's own
 * `listTools` checks the whole answer at once: one tool out of shape (an `inputSchema` without
 * `"type": "object"`) failed the server behind the client's zod issue list, every tool lost. And a
 * tool whose `inputSchema` is no valid JSON Schema (`{"type": "strin"}`) was offered as it was,
 * so a provider that checks schemas (OpenAI's API does) refused every request of the session.
 * Here each tool is read by the MCP schema of a tool, and its `inputSchema` checked against the
 * JSON Schema meta-schema (ajv: draft-07 when the schema says so, 2020-12, MCP's default, else)
 * and compiled (a schema the meta-schema lets through may still be unusable: a `$ref` to nowhere);
 * a tool that fails any of these is left out with one sentence naming it and what is wrong, and the
 * server's other tools are kept.
 */

import type * as ClientModule from "@modelcontextprotocol/client";
import type { Client, Tool as McpTool } from "@modelcontextprotocol/client";
import type { Ajv } from "ajv";
import { z } from "zod";

/** The answer to `tools/list`, its tools read one by one below. */
const LOOSE_LIST = z.looseObject({ tools: z.array(z.unknown()) });

/** A server's tools that can be offered, and a sentence for each one left out. */
export interface CheckedTools {
  tools: McpTool[];
  /** `tool "odd" is left out: its inputSchema is no valid JSON Schema (/properties/q/type must be …)`. */
  leftOut: string[];
}

/**
 * Asks `client` for its tools (one page, as the client's `listTools` does) and checks each.
 * @param options the request's options (its `timeout`, ms).
 * @throws what the request throws (no answer, a JSON-RPC error, an answer with no `tools` list).
 */
export async function checkedTools(
  client: Client,
  clientModule: typeof ClientModule,
  options: { timeout: number },
): Promise<CheckedTools> {
  const answer = await client.request({ method: "tools/list", params: {} }, LOOSE_LIST, options);
  const checked: CheckedTools = { tools: [], leftOut: [] };
  for (const [index, item] of answer.tools.entries()) {
    const tool = await checkedTool(item, clientModule);
    if (typeof tool === "string") {
      const name = (item as { name?: unknown } | null)?.name;
      const named =
        typeof name === "string" && name !== ""
          ? `tool "${name}"`
          : `tool ${index + 1} of the list`;
      checked.leftOut.push(`${named} is left out: ${tool}`);
    } else {
      checked.tools.push(tool);
    }
  }
  return checked;
}

/** `item` as a tool, or what is wrong with it (the first issue, with where it is). */
async function checkedTool(
  item: unknown,
  clientModule: typeof ClientModule,
): Promise<McpTool | string> {
  // In the words of the other checks, not zod's "expected object, received undefined" (trial 44 F6).
  if (
    item !== null &&
    typeof item === "object" &&
    (item as Partial<McpTool>).inputSchema === undefined
  ) {
    return 'it has no inputSchema (MCP requires one, {"type": "object"} at least)';
  }
  const parsed = clientModule.specTypeSchemas.Tool["~standard"].validate(item);
  if (parsed.issues !== undefined) {
    const issue = parsed.issues[0];
    const path = (issue?.path ?? []).map((key) => (typeof key === "object" ? key.key : key));
    const where = path.length === 0 ? "" : `${path.map(String).join(".")}: `;
    return `${where}${issue?.message ?? "not a tool"}`;
  }
  const tool = parsed.value as McpTool;
  if (tool.name === "") {
    return "its name is empty (a tool is called by its name)";
  }
  const problem = await schemaProblem(tool.inputSchema as Record<string, unknown>);
  return problem === undefined ? tool : `its inputSchema ${problem}`;
}

/** Any keyword and format a provider may take is let through: only the schema's shape is checked. */
const AJV_OPTIONS = { strict: false, validateFormats: false };

/**
 * The class `name` of an `ajv` module as `import()` gives it: a CommonJS module whose
 * `module.exports` is the class itself, so Node (and a bundle) may give it as `default` only.
 */
function ajvClass(module: object, name: string): new (options: typeof AJV_OPTIONS) => Ajv {
  const found = module as Record<string, unknown> & { default?: Record<string, unknown> };
  return (found[name] ?? found.default?.[name] ?? found.default) as new (
    options: typeof AJV_OPTIONS,
  ) => Ajv;
}

/** The two checkers, made once: draft-07's and 2020-12's meta-schemas. */
let checkers: Promise<{ draft07: Ajv; draft2020: Ajv }> | undefined;

/**
 * What is wrong with `schema`, said after "its inputSchema": `is no valid JSON Schema (<ajv's
 * first error>)` when the meta-schema refuses it, `cannot be compiled (<why>)` when it passes the
 * meta-schema but no checker can use it (a `$ref` to nowhere: `can't resolve reference
 * #/defs/none from id #`); undefined when it is a usable JSON Schema.
 */
async function schemaProblem(schema: Record<string, unknown>): Promise<string | undefined> {
  checkers ??= Promise.all([import("ajv"), import("ajv/dist/2020.js")]).then(
    ([draft07, draft2020]) => ({
      draft07: new (ajvClass(draft07, "Ajv"))(AJV_OPTIONS),
      draft2020: new (ajvClass(draft2020, "Ajv2020"))(AJV_OPTIONS),
    }),
  );
  const { draft07, draft2020 } = await checkers;
  const { $schema, ...rest } = schema;
  const ajv = typeof $schema === "string" && /draft-0[4-7]/.test($schema) ? draft07 : draft2020;
  try {
    if (ajv.validateSchema(rest) !== true) {
      const first = ajv.errors?.[0];
      const why =
        first === undefined
          ? "rejected"
          : `${first.instancePath || "/"} ${first.message ?? ""}`.trim();
      return `is no valid JSON Schema (${why})`;
    }
  } catch (error) {
    return `is no valid JSON Schema (${error instanceof Error ? error.message : String(error)})`;
  }
  return compileProblem(ajv, rest);
}

/**
 * Why `ajv` cannot compile `schema` (`cannot be compiled (…)`), or undefined when it can. The
 * compiled schema is removed again, so two tools' schemas with the same `$id` do not clash.
 */
function compileProblem(ajv: Ajv, schema: Record<string, unknown>): string | undefined {
  try {
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return `cannot be compiled (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    try {
      ajv.removeSchema(schema);
    } catch {
      // Nothing was added to remove.
    }
  }
}
