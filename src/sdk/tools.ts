/**
 * Custom tools of an app: declared to the runtime in `session.create` (name, description, JSON
 * Schema) and run here when the runtime emits `external_tool.requested`.
 */

import type { JsonObject } from "../events/events.js";
import type { ExternalToolResult, ToolDeclaration } from "../protocol/copilot.js";

/** What a tool handler gets besides its arguments. */
export interface ToolInvocation {
  /** The session whose model called the tool. */
  sessionId: string;
  /** The model's id of the call. */
  toolCallId: string;
  /** The tool's name, as declared. */
  toolName: string;
  /** The arguments as the model sent them, before any schema's validation. */
  arguments: JsonObject;
  /** Aborted when the runtime no longer waits (the prompt was cancelled). */
  signal: AbortSignal;
}

/**
 * A schema library's value as the Standard Schema v1 spec (standardschema.dev) describes it:
 * zod ≥ 3.24, valibot, arktype … The Standard JSON Schema extension (`jsonSchema.input`, zod
 * ≥ 4.2) gives the JSON Schema sent to the runtime. Typed here, as the spec asks, so that an app's
 * own copy of zod (any version) is recognised without `instanceof` and turnloop's zod is never
 * loaded for an app.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: { readonly input: (options: { target: string }) => unknown } | undefined;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** What a schema's handler receives: its output type, or a JSON object for JSON Schema. */
export type ArgumentsOf<Schema> =
  Schema extends StandardSchema<unknown, infer Output> ? Output : JsonObject;

/** A tool the app runs. Build one with {@link defineTool}. */
export interface Tool {
  /** The name the model calls it by (a built-in's name only with `overridesBuiltInTool`). */
  name: string;
  /** What the tool does, for the model. */
  description?: string;
  /** JSON Schema of the arguments, as sent to the runtime. */
  parameters?: JsonObject;
  /**
   * Runs a call with the arguments (validated when a schema object was given). Returns text, a
   * Copilot `ToolResultObject` (`{textResultForLlm, resultType}`), or anything JSON-serialisable;
   * a throw becomes an error result for the model.
   */
  handler: (args: JsonObject, invocation: ToolInvocation) => unknown;
  /** Changes nothing outside the app: calls may run in parallel and without asking. */
  readOnly?: boolean;
  /** Run without asking for permission. */
  skipPermission?: boolean;
  /** Replace the built-in tool of the same name. */
  overridesBuiltInTool?: boolean;
}

/**
 * {@link defineTool}'s settings; `parameters` is a Standard Schema (e.g. a zod schema from the
 * app's own zod) or a JSON Schema object.
 */
export interface ToolSettings<Schema extends StandardSchema | JsonObject = JsonObject> {
  /** What the tool does, for the model. */
  description?: string;
  /** The arguments' schema; absent: any object. */
  parameters?: Schema;
  /** As {@link Tool.handler}, given the schema's validated output. */
  handler: (args: ArgumentsOf<Schema>, invocation: ToolInvocation) => unknown;
  /** Changes nothing outside the app: calls may run in parallel and without asking. */
  readOnly?: boolean;
  /** Run without asking for permission. */
  skipPermission?: boolean;
  /** Replace the built-in tool of the same name. */
  overridesBuiltInTool?: boolean;
}

/**
 * Declares a tool. With a schema object the handler gets its validated output (a failure is an
 * error result the model sees, listing each issue with its path), and the runtime gets the
 * schema's JSON Schema (`~standard.jsonSchema.input`, else zod's `toJSONSchema()` method). A
 * JSON Schema object is sent as is; the runtime validates calls against it.
 * @throws TypeError when `parameters` is a schema that cannot describe itself as JSON Schema
 * (e.g. zod < 4.2: pass `z.toJSONSchema(schema)` instead).
 */
export function defineTool<Schema extends StandardSchema | JsonObject = JsonObject>(
  name: string,
  settings: ToolSettings<Schema>,
): Tool {
  const { parameters } = settings;
  const schema = isStandardSchema(parameters) ? parameters : undefined;
  const declared =
    schema === undefined ? (parameters as JsonObject | undefined) : jsonSchemaOf(name, schema);
  const handler = settings.handler as (args: unknown, invocation: ToolInvocation) => unknown;
  return {
    name,
    ...(settings.description === undefined ? {} : { description: settings.description }),
    ...(declared === undefined ? {} : { parameters: declared }),
    handler:
      schema === undefined
        ? handler
        : async (args, invocation) => handler(await validated(name, schema, args), invocation),
    ...(settings.readOnly === undefined ? {} : { readOnly: settings.readOnly }),
    ...(settings.skipPermission === undefined ? {} : { skipPermission: settings.skipPermission }),
    ...(settings.overridesBuiltInTool === undefined
      ? {}
      : { overridesBuiltInTool: settings.overridesBuiltInTool }),
  };
}

function isStandardSchema(value: unknown): value is StandardSchema {
  if (typeof value !== "object" || value === null || !("~standard" in value)) {
    return false;
  }
  const standard = (value as { "~standard": unknown })["~standard"];
  return (
    typeof standard === "object" &&
    standard !== null &&
    typeof (standard as { validate?: unknown }).validate === "function"
  );
}

function jsonSchemaOf(name: string, schema: StandardSchema): JsonObject {
  const standard = schema["~standard"];
  const method = (schema as { toJSONSchema?: unknown }).toJSONSchema;
  let converted: unknown;
  if (typeof standard.jsonSchema?.input === "function") {
    converted = standard.jsonSchema.input({ target: "draft-2020-12" });
  } else if (typeof method === "function") {
    converted = (method as (options: object) => unknown).call(schema, { io: "input" });
  } else {
    throw new TypeError(
      `tool ${name}: its ${standard.vendor} schema cannot describe itself as JSON Schema; ` +
        "pass a JSON Schema object as parameters (with zod < 4.2: z.toJSONSchema(schema))",
    );
  }
  const { $schema: _schema, ...rest } = converted as JsonObject;
  return rest;
}

async function validated(name: string, schema: StandardSchema, args: unknown): Promise<unknown> {
  const result = await schema["~standard"].validate(args);
  if (result.issues === undefined) {
    return result.value;
  }
  const issues = result.issues.map((issue) => {
    const path = (issue.path ?? [])
      .map((part) => String(typeof part === "object" ? part.key : part))
      .join(".");
    return path === "" ? issue.message : `${path}: ${issue.message}`;
  });
  throw new Error(`invalid arguments for ${name}: ${issues.join("; ")}`);
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
