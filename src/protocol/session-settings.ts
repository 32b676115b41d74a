/**
 * The one description of a session's settings: the params of `session.create` and
 * `session.resume` (Copilot SDK protocol v3 names; {@link SessionCreateParams} in copilot.ts
 * documents each field). The server parses those requests with these schemas
 * (src/server/session-opening.ts) and the SDK checks an app's settings with them before sending
 * (src/sdk/config-check.ts), so a wrong setting gets the same words from either side
 * (plain-problems.ts).
 *
 * Objects are loose: the Copilot SDK sends many settings turnloop does not implement, and those
 * must not be errors. Which they are is {@link COPILOT_ONLY_SETTINGS}: the settings the Copilot
 * SDK 1.0.14 `CopilotClient` sends in `session.create` / `session.resume` (its `dist/client.js`,
 * the devDependency `@github/copilot-sdk`) that turnloop reads nothing of.
 */

import { z } from "zod";
import { SESSION_ID_PATTERN } from "../events/random-id.js";
import { closestName } from "../events/setting-words.js";
import { SANDBOX_POLICIES } from "../tools/sandbox/policy.js";

const jsonObject = z.record(z.string(), z.json());

export const sessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, "letters, digits, '-' or '_' (at most 128), e.g. a UUID");

export const modeSchema = z.enum(["interactive", "plan", "autopilot", "shell"]);

const systemMessageSchema = z.looseObject({
  mode: z.enum(["append", "replace", "customize"]).optional(),
  content: z.string().optional(),
  /** `customize`: Copilot's section ids → `{action, content?}`; `transform` asks the app. */
  sections: z
    .record(
      z.string(),
      z.looseObject({
        action: z.enum(["replace", "remove", "append", "prepend", "preserve", "transform"]),
        content: z.string().optional(),
      }),
    )
    .optional(),
});
export type SystemMessageParams = z.infer<typeof systemMessageSchema>;

const toolDeclarationSchema = z.looseObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a name of 1-64 letters, digits, '_' or '-'"),
  description: z.string().optional(),
  parameters: jsonObject.optional(),
  skipPermission: z.boolean().optional(),
  overridesBuiltInTool: z.boolean().optional(),
  /** turnloop: the tool changes nothing, so calls may run in parallel without asking. */
  readOnly: z.boolean().optional(),
});

/** A custom tool declaration as validated (see `ToolDeclaration` in copilot.ts). */
export type ToolDeclarationParams = z.infer<typeof toolDeclarationSchema>;

const providerSchema = z.looseObject({
  type: z.enum(["openai", "azure", "anthropic"]).optional(),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string().min(1),
  apiKey: z.string().optional(),
  bearerToken: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Copilot's catalogue id of the model, used as its name when `model` is absent. */
  modelId: z.string().min(1).optional(),
  /** The model name sent on the wire (wins over `model` and `modelId`). */
  wireModel: z.string().min(1).optional(),
});

export type ProviderParams = z.infer<typeof providerSchema>;

/**
 * The Copilot SDK's `SessionConfig.infiniteSessions` (`InfiniteSessionConfig`): thresholds are
 * fractions of the model's context window, above 0 and at most 1 (src/server/infinite-sessions.ts
 * reads them).
 */
export const infiniteSessionsSchema = z.looseObject({
  enabled: z.boolean().optional(),
  backgroundCompactionThreshold: z.number().gt(0).max(1).optional(),
  bufferExhaustionThreshold: z.number().gt(0).max(1).optional(),
});

export type InfiniteSessions = z.infer<typeof infiniteSessionsSchema>;

const sessionConfigShape = {
  model: z.string().min(1).optional(),
  provider: providerSchema.optional(),
  tools: z.array(toolDeclarationSchema).optional(),
  systemMessage: systemMessageSchema.optional(),
  /**
   * Only tools matching these filters (names, or `builtin:`/`custom:`/`mcp:` qualified, see
   * src/server/tool-filter.ts) are offered; `[]`: none. Absent: all.
   */
  availableTools: z.array(z.string()).optional(),
  /** Tools matching these filters are not offered, even when `availableTools` matches them. */
  excludedTools: z.array(z.string()).optional(),
  /** Copilot's default agent: its `excludedTools` are excluded (turnloop has no sub-agents). */
  defaultAgent: z.looseObject({ excludedTools: z.array(z.string()).optional() }).optional(),
  /** The app's name, sent in the model requests' user agent. */
  clientName: z.string().optional(),
  reasoningEffort: z.string().min(1).optional(),
  requestPermission: z.boolean().optional(),
  /**
   * turnloop's extension (the Copilot SDK's `SessionConfig` has no such field): the app answers
   * the questions to run outside the sandbox a command it stopped (`permissionRequest` with
   * `requestSandboxBypass: true`, Copilot's name for such a request); absent or false, those
   * commands are not run outside it and the model reads why (README, "Sandbox").
   */
  requestSandboxBypass: z.boolean().optional(),
  /** The app answers `userInput.request`: the `ask_user` tool is offered. */
  requestUserInput: z.boolean().optional(),
  hooks: z.boolean().optional(),
  streaming: z.boolean().optional(),
  workingDirectory: z.string().min(1).optional(),
  allowAllTools: z.boolean().optional(),
  mode: modeSchema.optional(),
  /**
   * turnloop's extension (the Copilot SDK's `SessionConfig` has no such field): the sandbox
   * policy of the session's commands (README, "Sandbox"); absent: the server's `--sandbox`.
   */
  sandbox: z.enum(SANDBOX_POLICIES).optional(),
  /** Copilot SDK `SessionConfig.mcpServers`: servers by name, checked one by one when started. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** Copilot SDK `SessionConfig.infiniteSessions`: the compaction threshold. */
  infiniteSessions: infiniteSessionsSchema.optional(),
};

export const createParams = z.looseObject({
  ...sessionConfigShape,
  sessionId: sessionIdSchema.optional(),
});
export type CreateParams = z.infer<typeof createParams>;

export const resumeParams = z.looseObject({
  ...sessionConfigShape,
  sessionId: sessionIdSchema,
  /** Whether work left waiting for an app goes on (server/pending-work.ts). */
  continuePendingWork: z.boolean().optional(),
});
export type ResumeParams = z.infer<typeof resumeParams>;

/** Every setting turnloop reads, in `session.create` or `session.resume`. */
export const TURNLOOP_SETTINGS: readonly string[] = Object.keys(resumeParams.shape);

/**
 * Settings the Copilot SDK 1.0.14 sends that turnloop does not implement, each with the value the
 * SDK sends by default (`undefined`: none besides `false`, `null` and empty values). A setting
 * left at that value asks for nothing; any other value is accepted and said once
 * ({@link ignoredSettings}).
 */
export const COPILOT_ONLY_SETTINGS: Readonly<Record<string, unknown>> = {
  ...Object.fromEntries(
    [
      "reasoningSummary",
      "isExperimentalMode",
      "contextTier",
      "toolSearch",
      "canvases",
      "requestCanvasRenderer",
      "requestExtensions",
      "extensionSdkPath",
      "extensionInfo",
      "canvasProvider",
      "commands",
      "excludedBuiltinAgents",
      "capi",
      "providers",
      "models",
      "enableSessionTelemetry",
      "enableCitations",
      "enableFileChangeTracking",
      "sessionLimits",
      "modelCapabilities",
      "largeOutput",
      "requestElicitation",
      "askUserVariant",
      "requestMcpApps",
      "githubMcpToolConfig",
      "requestExitPlanMode",
      "requestAutoModeSwitch",
      "additionalDirectories",
      "enableGitHubTelemetryForwarding",
      "mcpOAuthTokenStorage",
      "authClientIdMetadataUrl",
      "customAgents",
      "customAgentsLocalOnly",
      "agent",
      "configDir",
      "enableConfigDiscovery",
      "skipEmbeddingRetrieval",
      "embeddingCacheStorage",
      "organizationCustomInstructions",
      "enableOnDemandInstructionDiscovery",
      "enableFileHooks",
      "enableHostGitOperations",
      "enableSessionStore",
      "enableSkills",
      "skillDirectories",
      "pluginDirectories",
      "instructionDirectories",
      "disabledSkills",
      "disabledMcpServers",
      "memory",
      "gitHubToken",
      "gitHubTokenProviderRegistrationId",
      "remoteSession",
      "cloud",
      "featureFlags",
      "expAssignments",
      "enableManagedSettings",
      "managedSettings",
      "factories",
      "disableResume",
      "openCanvases",
      "requestedEnvironmentVariables",
      "traceparent",
      "tracestate",
      // SessionConfig names the Copilot SDK keeps in the app or sends by `session.options.update`;
      // turnloop/sdk sends them by name (src/sdk/copilot-names.ts) to be said ignored here.
      "onMcpAuthRequest",
      "gitHubTokenProvider",
      "createSessionFsProvider",
      "skipCustomInstructions",
      "coauthorEnabled",
      "manageScheduleEnabled",
      "includedBuiltinSkills",
    ].map((name) => [name, undefined]),
  ),
  // Sent on every create and resume: turnloop behaves so anyway.
  toolFilterPrecedence: "excluded",
  includeSubAgentStreamingEvents: true,
  envValueMode: "direct",
};

/** Whether `value` asks for nothing: absent, `false`, `null`, `""`, `[]`, `{}`, or the default. */
function asksNothing(value: unknown, byDefault: unknown): boolean {
  if (value === undefined || value === null || value === false || value === "") {
    return true;
  }
  if (Array.isArray(value)) {
    return value.length === 0;
  }
  if (typeof value === "object") {
    return Object.keys(value).length === 0;
  }
  return value === byDefault;
}

/** The settings of `session.create` / `session.resume` params that turnloop does not read. */
export interface IgnoredSettings {
  /** Copilot's settings given a value that asks for something turnloop does not do. */
  copilotOnly: string[];
  /** Settings in neither turnloop's nor Copilot's list, each with the near name it may mean. */
  unknown: Array<{ name: string; meant?: string }>;
}

/** A name's letters in order, to find a setting with the same letters swapped. */
function letters(name: string): string {
  return [...name.toLowerCase()].sort().join("");
}

/**
 * The near setting `name` may be a misspelling of, if any: one with the same letters in another
 * order ("modle" → "model", not "mode"), else the nearest spelling (events/setting-words.ts).
 */
export function closestSetting(name: string): string | undefined {
  const known = [...TURNLOOP_SETTINGS, ...Object.keys(COPILOT_ONLY_SETTINGS)];
  return known.find((option) => letters(option) === letters(name)) ?? closestName(name, known);
}

/** What of `params` (create or resume params, parsed or not) turnloop does not read. */
export function ignoredSettings(params: Record<string, unknown>): IgnoredSettings {
  const ignored: IgnoredSettings = { copilotOnly: [], unknown: [] };
  for (const [name, value] of Object.entries(params)) {
    if (TURNLOOP_SETTINGS.includes(name)) {
      continue;
    }
    if (Object.hasOwn(COPILOT_ONLY_SETTINGS, name)) {
      if (!asksNothing(value, COPILOT_ONLY_SETTINGS[name])) {
        ignored.copilotOnly.push(name);
      }
      continue;
    }
    const meant = closestSetting(name);
    ignored.unknown.push(meant === undefined ? { name } : { name, meant });
  }
  return ignored;
}
