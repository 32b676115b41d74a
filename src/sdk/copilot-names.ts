/**
 * The Copilot SDK's session settings that go on the wire under another name, as the
 * `@github/copilot-sdk` 1.0.14 `CopilotClient` sends them in `session.create` / `session.resume`
 * (its `dist/client.js`; the names of `SessionConfig` / `ResumeSessionConfig` in its
 * `dist/types.d.ts`). `turnloop/sdk` takes an app's Copilot settings by the same names and sends
 * them the same way, so the server reads (`onUserInputRequest` → `requestUserInput`) or says it
 * ignores (src/server/ignored-settings.ts) what a Copilot SDK app would have sent.
 */

import type { WireEvent } from "../protocol/wire-event.js";

/**
 * Handlers the server asks through a request of its own, by the capability flag that says the
 * app has one (reference `copilot-protocol.md`, "Capability flags"): `true` when the handler is
 * set. Only `onUserInputRequest` is implemented (`userInput.request`, the `ask_user` tool).
 */
export const COPILOT_HANDLER_FLAGS = {
  onUserInputRequest: "requestUserInput",
  onElicitationRequest: "requestElicitation",
  onExitPlanModeRequest: "requestExitPlanMode",
  onAutoModeSwitchRequest: "requestAutoModeSwitch",
} as const;

/** Settings sent under another name, the value as given. */
export const COPILOT_WIRE_NAMES: Readonly<Record<string, string>> = {
  enableExperimentalMode: "isExperimentalMode",
  configDirectory: "configDir",
  enableMcpApps: "requestMcpApps",
  suppressResumeEvent: "disableResume",
};

/**
 * Copilot's settings that are functions, checked as such before anything is sent. Those without a
 * flag the Copilot SDK keeps in the app; sent by name (as `true`, as every other such setting:
 * `skipCustomInstructions` …), the server names them among those it ignores
 * (src/protocol/session-settings.ts `COPILOT_ONLY_SETTINGS`).
 */
export const COPILOT_HANDLER_SETTINGS: readonly string[] = [
  ...Object.keys(COPILOT_HANDLER_FLAGS),
  "onMcpAuthRequest",
  "gitHubTokenProvider",
  "createSessionFsProvider",
];

/**
 * `settings` (an app's session settings, those only the SDK reads taken out) as the wire's params:
 * Copilot's handlers as their capability flags, renamed settings under their wire names, the
 * others as they are (a function as `true`).
 */
export function copilotWireSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) {
      continue;
    }
    const flag = COPILOT_HANDLER_FLAGS[name as keyof typeof COPILOT_HANDLER_FLAGS];
    wire[flag ?? COPILOT_WIRE_NAMES[name] ?? name] = typeof value === "function" ? true : value;
  }
  return wire;
}

/**
 * `event` in the names the app wrote: the server's `settings_ignored` warning
 * (src/server/ignored-settings.ts) names the settings it was sent, the wire's names; each the app
 * set under another name ({@link COPILOT_HANDLER_FLAGS}, {@link COPILOT_WIRE_NAMES}: the
 * `requestAutoModeSwitch` of an app's `onAutoModeSwitchRequest`) is named as `settings` has it,
 * so that the warning does not mix the two (round 3, session 46's check). Any other event as is.
 */
export function inAppNames(event: WireEvent, settings: object): WireEvent {
  if (event.type !== "session.warning" || event.data.warningType !== "settings_ignored") {
    return event;
  }
  let message = event.data.message;
  for (const [name, wire] of Object.entries({ ...COPILOT_HANDLER_FLAGS, ...COPILOT_WIRE_NAMES })) {
    if ((settings as Record<string, unknown>)[name] !== undefined) {
      message = message.replace(new RegExp(`\\b${wire}\\b`, "g"), name);
    }
  }
  return { ...event, data: { ...event.data, message } };
}
