/**
 * How a server session's prompt is run: which tools it offers (the app's `availableTools` /
 * `excludedTools`, the mode), the system prompt, and what each model request carries (streaming
 * or not, the app's headers and user agent). Kept apart from {@link ServerSession}, which owns the
 * queue and the wire.
 */

import type { Authorize } from "../agent/tool-calls.js";
import type { LlmEvent, ModelRequest, Provider } from "../llm/provider.js";
import type { SessionMode } from "../protocol/copilot.js";
import type { SessionAgentSettings } from "../session/session.js";
import type { AnyTool } from "../tools/define-tool.js";
import type { ClientLink } from "./client-link.js";
import type { HookRunner } from "./hooks.js";
import { compactionSettings } from "./infinite-sessions.js";
import type { CreateParams } from "./params.js";
import { promptSections, systemPromptWith, transformedSections } from "./prompt-text.js";
import { inCopilotWords } from "./result-wording.js";
import { BUILT_IN_TOOL_NAMES, passesToolFilters, type ToolSource } from "./tool-filter.js";

/** How long the app may take to answer `systemMessage.transform` (ms). */
const TRANSFORM_TIMEOUT_MS = 30_000;

/** The part of the app's connection the transform request needs. */
type Requester = Pick<ClientLink, "request">;

/** What an app registered for a session in `session.create` / `session.resume`. */
export type SessionConfig = Pick<
  CreateParams,
  | "tools"
  | "systemMessage"
  | "requestPermission"
  | "requestSandboxBypass"
  | "requestUserInput"
  | "hooks"
  | "streaming"
  | "allowAllTools"
  | "availableTools"
  | "excludedTools"
  | "clientName"
  | "sandbox"
  | "infiniteSessions"
>;

/** Said to the model in `plan` and `shell` mode, after the system prompt. */
const MODE_NOTES: Partial<Record<SessionMode, string>> = {
  plan: "Plan mode: investigate with the read-only tools and answer with a plan (steps, files, risks). Do not change files or run commands; only tools that change nothing are available.",
  shell:
    "Shell mode: the user's message is a shell command. Run it exactly as given with the bash tool and report what it printed.",
};

/**
 * The tools offered: those matching the app's `availableTools` (`[]` = none) and none of its
 * `excludedTools` (filters as in tool-filter.ts; `externalTools` are the `custom` source); in
 * plan mode only those that change nothing.
 */
export function offeredTools(
  tools: readonly AnyTool[],
  config: SessionConfig,
  mode: SessionMode,
  externalTools: readonly AnyTool[],
): AnyTool[] {
  const sourceOf = (tool: AnyTool): ToolSource =>
    externalTools.includes(tool)
      ? "custom"
      : BUILT_IN_TOOL_NAMES.has(tool.name)
        ? "builtin"
        : "mcp";
  const excluded = config.excludedTools ?? [];
  return tools.filter(
    (tool) =>
      passesToolFilters(
        { name: tool.name, source: sourceOf(tool) },
        config.availableTools,
        excluded,
      ) &&
      (mode !== "plan" || !tool.mutates),
  );
}

/** The system prompt for `mode` with the app's `systemMessage` (transformed sections applied). */
export function systemPromptFor(
  base: string,
  config: SessionConfig,
  mode: SessionMode,
  transformed: Record<string, string>,
): string {
  const prompt = systemPromptWith(base, config.systemMessage, transformed);
  const note = MODE_NOTES[mode];
  return note === undefined ? prompt : `${prompt}\n\n${note}`;
}

/**
 * `provider` with what this session's requests carry: non-streaming unless the app asked for
 * `streaming: true` (as the Copilot CLI does: no `stream` key, no deltas), the headers (the
 * prompt's `requestHeaders`, `clientName` at the front of the user agent), the reasoning effort,
 * and tool results' images as the Copilot CLI sends them (`toolImages: "user-message"`).
 */
export function requestProvider(
  provider: Provider,
  config: SessionConfig,
  requestHeaders: Record<string, string> | undefined,
  reasoningEffort: string | undefined,
): Provider {
  const headers: Record<string, string> = { ...requestHeaders };
  if (config.clientName !== undefined && config.clientName !== "") {
    // The AI SDK appends its own tokens to a user agent it is given.
    headers["user-agent"] = `${config.clientName} turnloop`;
  }
  const extra: Pick<ModelRequest, "streaming" | "headers" | "reasoningEffort" | "toolImages"> = {
    streaming: config.streaming === true,
    toolImages: "user-message",
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  };
  return {
    id: provider.id,
    // Tool results' and prompts' images go to the model or, without vision, silently nowhere
    // (Copilot's way, see `ToolImages` in llm/convert.ts): no warning about them on this face.
    ...(provider.imageInput === undefined ? {} : { imageInput: { user: true, toolResults: true } }),
    stream: (request: ModelRequest, signal: AbortSignal): AsyncIterable<LlmEvent> =>
      provider.stream({ ...request, ...extra }, signal),
  };
}

/**
 * The app's `systemMessage.transform` answer for the sections it transforms (Copilot's request:
 * `{sessionId, sections: {id: {content}}}` → `{sections: {id: {content}}}`); the sections as they
 * are when the app fails to answer. Nothing is asked when no section is transformed.
 */
export async function askTransforms(
  link: Requester,
  sessionId: string,
  base: string,
  config: SessionConfig,
  signal: AbortSignal,
): Promise<Record<string, string>> {
  const ids = transformedSections(config.systemMessage);
  if (ids.length === 0) {
    return {};
  }
  const current = Object.fromEntries(
    promptSections(base)
      .filter((section) => ids.includes(section.id))
      .map((section) => [section.id, section.content]),
  );
  const sections = Object.fromEntries(
    Object.entries(current).map(([id, content]) => [id, { content }]),
  );
  try {
    const params = { sessionId, sections };
    const answer = (await link.request(
      "systemMessage.transform",
      params,
      signal,
      TRANSFORM_TIMEOUT_MS,
    )) as { sections?: Record<string, { content?: unknown }> } | null;
    return Object.fromEntries(
      Object.entries(answer?.sections ?? {}).flatMap(([id, section]) =>
        typeof section.content === "string" ? [[id, section.content]] : [],
      ),
    );
  } catch {
    return current;
  }
}

/** What one prompt of a server session adds to the host's agent settings. */
export interface PromptSettingsRequest {
  sessionId: string;
  config: SessionConfig;
  /** The app's connection; without one no system prompt transform is asked. */
  link: Requester | undefined;
  mode: SessionMode;
  /** The app's custom tools; each hides a built-in tool of the same name. */
  externalTools: readonly AnyTool[];
  /**
   * The app's hooks: `wrapTool` wraps each offered tool (`postToolUse`), `unknownTool` is told of
   * calls of tools that do not exist (`preToolUse`), `modelFailure` is asked about a failed model
   * request (`errorOccurred`).
   */
  hooks: Pick<HookRunner, "wrapTool" | "callNotRun" | "modelFailure">;
  /** The permission path of the session (hooks first). */
  authorize: Authorize;
  signal: AbortSignal;
}

/**
 * The settings of one prompt: the host's `settings`, with the app's tools over built-ins of the
 * same name, the tools the app and the mode offer (chosen before each model request among all
 * the tools, MCP servers' included, and wrapped with the app's `postToolUse` hooks), the app's
 * system message (transforms asked now) and the session's permission path.
 */
export async function promptSettings(
  settings: SessionAgentSettings,
  request: PromptSettingsRequest,
): Promise<SessionAgentSettings> {
  const { config, externalTools, link, mode, hooks } = request;
  const overridden = new Set(externalTools.map((tool) => tool.name));
  const tools = settings.tools.filter(
    (tool) => !overridden.has(tool.name) || externalTools.includes(tool),
  );
  const transformed =
    link === undefined
      ? {}
      : await askTransforms(link, request.sessionId, settings.systemPrompt, config, request.signal);
  return {
    ...settings,
    systemPrompt: systemPromptFor(settings.systemPrompt, config, mode, transformed),
    tools,
    // Filtered per request, MCP tools included (they change while the session runs).
    offerTools: (available) =>
      offeredTools(available, config, mode, externalTools).map((tool) => hooks.wrapTool(tool)),
    authorize: request.authorize,
    onCallNotRun: hooks.callNotRun,
    onModelFailure: hooks.modelFailure,
    // As the Copilot CLI: once the user rejects a call, the model is not asked again.
    endAfterRejection: true,
    ...compactionSettings(config.infiniteSessions),
    rewordResult: (outcome) => inCopilotWords(outcome, overridden),
  };
}
