/**
 * How a session answers the runtime's permission questions with the app's handlers
 * (`permission.requested` → `session.permissions.handlePendingPermissionRequest`), and the
 * process warning (`TurnloopSdkWarning`) that tells an app its handler's answer was not used.
 */

import type { PermissionDecision } from "../protocol/copilot.js";
import type { PermissionHandler, PermissionRequest, SessionConfig } from "./types.js";

/** The decision sent when the app gave none it could use (Copilot: "could not request"). */
const UNAVAILABLE: PermissionDecision = { kind: "user-not-available" };

/**
 * The handler of `request`: a question to run a command outside the sandbox
 * (`requestSandboxBypass`) goes only to `onSandboxBypassRequest`, never to
 * `onPermissionRequest`; undefined when the app has no handler of its kind (another client may).
 */
export function handlerOf(
  config: Pick<SessionConfig, PermissionHandlerName>,
  request: PermissionRequest,
): { name: PermissionHandlerName; handler: PermissionHandler } | undefined {
  const name =
    request.requestSandboxBypass === true ? "onSandboxBypassRequest" : "onPermissionRequest";
  const handler = config[name];
  return handler === undefined ? undefined : { name, handler };
}

/** The session settings that hold permission handlers. */
export type PermissionHandlerName = "onPermissionRequest" | "onSandboxBypassRequest";

/**
 * Sends a decision; resolves with the runtime's refusal as its message, undefined when it took
 * the answer (or nobody is left to answer to).
 */
export type SendDecision = (result: PermissionDecision) => Promise<string | undefined>;

/**
 * Runs the app's permission handler and sends its decision. A handler that throws, returns no
 * decision object, or returns a kind the runtime refuses denies the call with
 * `{kind: "user-not-available"}` (Copilot SDK: a throwing handler sends that kind), and the app
 * is told by a process warning (`TurnloopSdkWarning`) naming the value, so the prompt never
 * waits for an answer that will not come. `{kind: "no-result"}` sends nothing, leaving the
 * request to another client (Copilot SDK).
 */
export async function answerPermission(
  { name, handler }: { name: PermissionHandlerName; handler: PermissionHandler },
  request: PermissionRequest,
  sessionId: string,
  send: SendDecision,
): Promise<void> {
  let result: unknown;
  try {
    result = await handler(request, { sessionId });
  } catch {
    result = UNAVAILABLE;
  }
  if (isDecision(result) && result.kind === "no-result") {
    return;
  }
  if (!isDecision(result)) {
    warnDenied(`${name} returned ${describeValue(result)}, not a decision object`);
    result = UNAVAILABLE;
  }
  const refusal = await send(result as PermissionDecision);
  if (refusal !== undefined && result !== UNAVAILABLE) {
    warnDenied(`the runtime refused ${name}'s decision: ${refusal}`);
    await send(UNAVAILABLE);
  }
}

function isDecision(value: unknown): value is PermissionDecision {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string"
  );
}

/** `value` in a warning: JSON where it has one, else its type. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) {
    return String(value);
  }
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Tells the app about a handler's unusable answer without throwing into its code. */
function warnDenied(message: string): void {
  sdkWarning(`${message}; the call was denied as user-not-available`);
}

/** A process warning of type `TurnloopSdkWarning` (`process.on("warning")` receives it). */
export function sdkWarning(message: string): void {
  process.emitWarning(message, { type: "TurnloopSdkWarning" });
}
