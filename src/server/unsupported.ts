/**
 * Copilot SDK methods that turnloop deliberately does not serve, with the reason an app's
 * developer reads in the `-32601` error (README, "Apps written for `@github/copilot-sdk`": out of
 * scope). Any other unknown method is a plain "Unknown method".
 */

const OUT_OF_SCOPE: ReadonlyArray<[prefix: string, reason: string]> = [
  ["account.", "GitHub authentication is out of scope (turnloop uses model API keys)"],
  ["session.gitHubAuth.", "GitHub authentication is out of scope (turnloop uses model API keys)"],
  ["gitHubToken.", "GitHub authentication is out of scope (turnloop uses model API keys)"],
  [
    "models.getBuiltInCatalog",
    "Copilot-hosted models are out of scope: name a model or a provider",
  ],
  ["session.canvas.", "canvases are out of scope"],
  ["canvas.", "canvases are out of scope"],
  ["session.fleet.", "fleet and remote control are out of scope"],
  ["session.remote.", "fleet and remote control are out of scope"],
  ["sessions.startRemoteControl", "fleet and remote control are out of scope"],
  ["sessions.stopRemoteControl", "fleet and remote control are out of scope"],
  ["sessions.transferRemoteControl", "fleet and remote control are out of scope"],
  ["sessions.setRemoteControlSteering", "fleet and remote control are out of scope"],
  ["sessions.getRemoteControlStatus", "fleet and remote control are out of scope"],
  ["session.factory.", "CLI extensions and factories are out of scope"],
  ["factory.", "CLI extensions and factories are out of scope"],
  ["extensions.", "CLI extensions and factories are out of scope"],
  ["session.extensions.", "CLI extensions and factories are out of scope"],
  ["registerExtensionLaunchProvider", "CLI extensions and factories are out of scope"],
  ["plugins.", "CLI plugins are out of scope"],
  ["session.plugins.", "CLI plugins are out of scope"],
  ["session.telemetry.", "telemetry to GitHub is out of scope"],
  ["llmInference.", "in-process model requests (requestHandler, FFI) are out of scope"],
  ["sessionFs.", "an app-provided session file system is out of scope: sessions live on disk"],
  ["session.workspaces.", "workspace files besides getWorkspace are not supported by turnloop"],
  [
    "session.plan.",
    "turnloop's plan is written by the model's update_plan tool; only read is served",
  ],
  ["session.agent.", "turnloop has a single agent (no custom agents to select)"],
  ["session.schedule.", "scheduled prompts are not supported by turnloop"],
  ["session.shell.", "user-requested shell commands are not supported by turnloop: send a prompt"],
];

/**
 * The message for `method` when no handler serves it: Copilot methods turnloop leaves out name
 * the reason; others are unknown.
 */
export function unsupportedMessage(method: string): string {
  const match = OUT_OF_SCOPE.find(([prefix]) => method.startsWith(prefix));
  return match === undefined
    ? `Unknown method: ${method}`
    : `${method} is not supported by turnloop: ${match[1]}`;
}
