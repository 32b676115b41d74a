/**
 * The checks `createSession` and `resumeSession` make of an app's settings before anything is
 * sent: the fields the SDK itself uses (tools, handlers, hooks, streaming, folder, id) must have
 * their types, so that a mistake is named ("createSession: tools must be an array of tools …, not
 * "x"") instead of failing inside the SDK ("tools.map is not a function"). The server checks the
 * other fields (a `-32602` naming the field).
 */

/** What a field was, for the message: JSON for a short value, else its type. */
function shown(value: unknown): string {
  if (typeof value === "function") {
    return "a function";
  }
  const json = value === undefined ? undefined : JSON.stringify(value);
  return json !== undefined && json.length <= 40 ? json : `a value of type ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A field's problem, or undefined: `value` must be undefined or pass `ok`, described by `what`. */
function fieldProblem(
  name: string,
  value: unknown,
  what: string,
  ok: (value: unknown) => boolean,
): string | undefined {
  return value === undefined || ok(value)
    ? undefined
    : `${name} must be ${what}, not ${shown(value)}`;
}

const TOOL = "a tool (defineTool(name, {description, parameters, handler}))";

/** The first problem of `tools`, or undefined. */
function toolsProblem(tools: unknown): string | undefined {
  if (tools === undefined) {
    return undefined;
  }
  if (!Array.isArray(tools)) {
    return `tools must be an array of tools (defineTool), not ${shown(tools)}`;
  }
  for (const [index, tool] of tools.entries()) {
    const named = isObject(tool) && typeof tool.name === "string" && tool.name !== "";
    if (!named || typeof tool.handler !== "function") {
      return `tools[${index}] must be ${TOOL}, not ${shown(tool)}`;
    }
  }
  return undefined;
}

/** The first problem of `hooks`, or undefined: an object of handler functions. */
function hooksProblem(hooks: unknown): string | undefined {
  if (hooks === undefined) {
    return undefined;
  }
  if (!isObject(hooks)) {
    return `hooks must be an object of hook handlers ({onPreToolUse, …}), not ${shown(hooks)}`;
  }
  const [name, handler] =
    Object.entries(hooks).find(([, value]) => value !== undefined && typeof value !== "function") ??
    [];
  return name === undefined ? undefined : `hooks.${name} must be a function, not ${shown(handler)}`;
}

/**
 * Checks `config`, the settings of `call`.
 * @throws TypeError `<call>: <field> must be <what>, not <value>` for the first field that is not.
 */
export function checkSessionConfig(call: "createSession" | "resumeSession", config: unknown): void {
  if (config !== undefined && !isObject(config)) {
    throw new TypeError(`${call}: the settings must be an object, not ${shown(config)}`);
  }
  const settings = config ?? {};
  const isString = (value: unknown) => typeof value === "string";
  const problem =
    toolsProblem(settings.tools) ??
    fieldProblem(
      "onPermissionRequest",
      settings.onPermissionRequest,
      "a function",
      (value) => typeof value === "function",
    ) ??
    hooksProblem(settings.hooks) ??
    fieldProblem(
      "streaming",
      settings.streaming,
      "true or false",
      (value) => typeof value === "boolean",
    ) ??
    fieldProblem("workingDirectory", settings.workingDirectory, "a folder's path", isString) ??
    fieldProblem("sessionId", settings.sessionId, "a string", isString);
  if (problem !== undefined) {
    throw new TypeError(`${call}: ${problem}`);
  }
}
