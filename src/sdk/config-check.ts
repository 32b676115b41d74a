/**
 * The checks `createSession` and `resumeSession` make of an app's settings before anything is
 * sent. First the fields only the SDK reads (tools, handlers, hooks: {@link checkSessionConfig}),
 * so that a mistake is named ("createSession: tools must be an array of tools …, not "x"")
 * instead of failing inside the SDK ("tools.map is not a function"). Then the names of the
 * settings and what goes on the wire ({@link checkWireSettings}), against the one description the
 * server parses with (src/protocol/session-settings.ts), in the words the server would answer
 * with (src/protocol/plain-problems.ts): "createSession: model must be a string, not 3".
 */

import { shownValue as shown } from "../protocol/plain-problems.js";
import { COPILOT_HANDLER_SETTINGS } from "./copilot-names.js";

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
    if (!isObject(tool) || typeof tool.name !== "string" || typeof tool.handler !== "function") {
      return `tools[${index}] must be ${TOOL}, not ${shown(tool)}`;
    }
    if (tool.name === "") {
      return `tools[${index}] has an empty name: a tool's name is 1-64 letters, digits, '_' or '-'`;
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
  const problem =
    toolsProblem(settings.tools) ??
    fieldProblem("onPermissionRequest", settings.onPermissionRequest, "a function", isFunction) ??
    fieldProblem(
      "onSandboxBypassRequest",
      settings.onSandboxBypassRequest,
      "a function",
      isFunction,
    ) ??
    fieldProblem("onEvent", settings.onEvent, "a function", isFunction) ??
    COPILOT_HANDLER_SETTINGS.map((name) =>
      fieldProblem(name, settings[name], "a function", isFunction),
    ).find((problem) => problem !== undefined) ??
    hooksProblem(settings.hooks);
  if (problem !== undefined) {
    throw new TypeError(`${call}: ${problem}`);
  }
}

function isFunction(value: unknown): boolean {
  return typeof value === "function";
}

/**
 * Checks `params`, what `call` sends for an app's settings (`session.create` / `session.resume`
 * params, the Copilot SDK's settings under their wire names: copilot-names.ts), against the
 * protocol's description: their names, then their values. A setting of the Copilot SDK's that
 * turnloop does not implement passes (the server says it is ignored).
 * Loads zod, through the description, on the first call only.
 * @throws TypeError `<call>: unknown setting "modle" (did you mean "model"?)` for a name neither
 * turnloop nor the Copilot SDK has; `<call>: <field> must be <what>, not <given>; …` as the
 * server's `-32602` would say it, for values it would refuse.
 */
export async function checkWireSettings(
  call: "createSession" | "resumeSession",
  params: Record<string, unknown>,
): Promise<void> {
  const settings = await import("../protocol/session-settings.js");
  const { checkValue } = await import("../protocol/plain-problems.js");
  const names = Object.entries(params).flatMap(([name, value]) =>
    value === undefined ? [] : [name],
  );
  const { unknown } = settings.ignoredSettings(
    Object.fromEntries(names.map((name) => [name, true])),
  );
  const problems = unknown.map(({ name, meant }) =>
    meant === undefined
      ? `unknown setting ${JSON.stringify(name)} (neither turnloop nor the Copilot SDK has it; see SessionConfig)`
      : `unknown setting ${JSON.stringify(name)} (did you mean ${JSON.stringify(meant)}?)`,
  );
  const schema = call === "createSession" ? settings.createParams : settings.resumeParams;
  const checked = checkValue(schema, params, "the settings");
  if (!checked.ok) {
    problems.push(...checked.problems);
  }
  if (problems.length > 0) {
    throw new TypeError(`${call}: ${problems.join("; ")}`);
  }
}
