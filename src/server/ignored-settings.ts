/**
 * The settings of a `session.create` / `session.resume` that turnloop does not read, said once
 * when the session is opened, as a `session.warning` (`warningType` {@link SETTINGS_IGNORED}) the
 * app receives and the log keeps. They are accepted, not refused: the Copilot SDK sends settings
 * turnloop does not implement (src/protocol/session-settings.ts, `COPILOT_ONLY_SETTINGS`), and a
 * later Copilot SDK may send settings neither list has, so refusing either would break apps
 * written for it. Turnloop's own SDK refuses unknown names before sending (src/sdk/config-check.ts).
 */

import { ignoredSettings } from "../protocol/session-settings.js";
import type { Session } from "../session/session.js";

/** The `warningType` of the warning naming the settings turnloop ignored. */
export const SETTINGS_IGNORED = "settings_ignored";

/** "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? "")
    : `${names.slice(0, -1).join(", ")} and ${names.at(-1) ?? ""}`;
}

/**
 * What `call`'s params ask for that turnloop ignores, as one message, or undefined when nothing:
 * the Copilot SDK's settings given a value that asks for something, and names neither turnloop
 * nor Copilot has, each with the near name it may mean.
 */
export function ignoredSettingsMessage(call: string, params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) {
    return undefined;
  }
  const { copilotOnly, unknown } = ignoredSettings(params as Record<string, unknown>);
  const parts: string[] = [];
  if (copilotOnly.length > 0) {
    const plural = copilotOnly.length === 1 ? "setting" : "settings";
    parts.push(
      `turnloop does not implement the Copilot SDK's ${plural} ${listed(copilotOnly)} and ignores ${copilotOnly.length === 1 ? "it" : "them"}`,
    );
  }
  if (unknown.length > 0) {
    const names = unknown.map(({ name, meant }) =>
      meant === undefined
        ? JSON.stringify(name)
        : `${JSON.stringify(name)} (did you mean ${JSON.stringify(meant)}?)`,
    );
    const plural = unknown.length === 1 ? "setting" : "settings";
    parts.push(`turnloop ignores the unknown ${plural} ${listed(names)}`);
  }
  return parts.length === 0 ? undefined : `${call}: ${parts.join("; ")}`;
}

/** A `session.warning`'s data. */
export interface WarningData {
  warningType: string;
  message: string;
}

/** The `session.warning` data naming what `call`'s params ask that turnloop ignores, if any. */
export function ignoredSettingsWarning(call: string, params: unknown): WarningData | undefined {
  const message = ignoredSettingsMessage(call, params);
  return message === undefined ? undefined : { warningType: SETTINGS_IGNORED, message };
}

/**
 * Emits the warning of `params` ignored settings in `session` (persisted, and sent to the apps
 * attached to it) and adds it to the session's `openingEvents`, as the project's warnings are
 * (session/project-warnings.ts), when there is anything to say. A `session.resume` through
 * another worker has its warning recorded by the session's owner instead (remote-sessions.ts).
 */
export function warnIgnoredSettings(session: Session, call: string, params: unknown): void {
  const data = ignoredSettingsWarning(call, params);
  if (data !== undefined) {
    session.openingEvents.push(session.emit({ type: "session.warning", data }));
  }
}
