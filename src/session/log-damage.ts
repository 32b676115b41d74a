/**
 * Damage in a session's log: the declared shape of each persisted event's `data`
 * (src/events/events.ts `SessionEventData`, parts in event-parts.ts) as zod schemas, which
 * event-log-reading.ts checks every line against (file store, PostgreSQL rows, `sessions import`),
 * so a line whose fields do not have their declared types is skipped as `invalid_event` instead
 * of reaching a fold that trusts them.
 *
 * Objects are loose: fields a later version adds are allowed; optional fields are checked only
 * when present. Shapes earlier versions wrote still load: `assistant.turn_end`'s `error` status
 * (event-parts.ts `TurnStatus`); every other change to the union added fields. The schemas are built on first use, not at import.
 */

import { z } from "zod";
import type {
  EphemeralEventType,
  JsonObject,
  JsonValue,
  PromptBlock,
  SessionEventData,
  SessionEventType,
} from "../events/events.js";

/** The event types a log holds: every type but the ephemeral ones. */
export type PersistedEventType = Exclude<SessionEventType, EphemeralEventType>;

/** A schema for each persisted type, whose output is that type's declared `data`. */
type DataSchemas = { [T in PersistedEventType]: z.ZodType<SessionEventData[T]> };

let schemas: DataSchemas | undefined;

/**
 * Whether `data` (a line's `data` object, as `JSON.parse` gave it) has the fields `type` declares,
 * each of its declared type (src/events/events.ts `SessionEventData`). Never throws.
 */
export function hasDeclaredData(type: PersistedEventType, data: object): boolean {
  schemas ??= dataSchemas();
  return schemas[type].safeParse(data).success;
}

function dataSchemas(): DataSchemas {
  const parts = partSchemas();
  return {
    ...lifeSchemas(parts),
    ...conversationSchemas(parts),
    ...turnSchemas(parts),
    ...toolSchemas(parts),
    ...controlSchemas(parts),
    ...appSchemas(parts),
  };
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Schemas of the parts events share (event-parts.ts); all `JSON.parse` gives is a `JsonValue`. */
function partSchemas() {
  const jsonObject = z.custom<JsonObject>(isPlainObject);
  return {
    string: z.string(),
    number: z.number(),
    boolean: z.boolean(),
    optionalString: z.string().optional(),
    optionalNumber: z.number().optional(),
    jsonValue: z.custom<JsonValue>((value) => value !== undefined),
    jsonObject,
    providerMetadata: z.record(z.string(), jsonObject).optional(),
    errorType: z.enum([
      "authentication",
      "invalid_request",
      "rate_limit",
      "quota",
      "overloaded",
      "server",
      "network",
      "stalled",
      "malformed_response",
      "configuration",
      "context_length_exceeded",
      "internal",
      "storage",
      "app",
    ]),
    finishReason: z.enum(["stop", "length", "content-filter", "tool-calls", "error", "other"]),
    stopReason: z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]),
    hookType: z.enum([
      "preToolUse",
      "postToolUse",
      "postToolUseFailure",
      "userPromptSubmitted",
      "sessionStart",
      "sessionEnd",
      "agentStop",
      "errorOccurred",
    ]),
    trigger: z.enum(["threshold", "context_limit_retry", "manual", "model_switch"]),
    image: z.looseObject({ mimeType: z.string(), data: z.string() }),
  };
}

type Parts = ReturnType<typeof partSchemas>;

/** `session.start`, `session.shutdown` and compactions. */
function lifeSchemas({ string, number, optionalString, optionalNumber, trigger }: Parts) {
  const tokens = { inputTokens: number, outputTokens: number };
  const cacheTokens = { cacheReadTokens: number, cacheWriteTokens: number };
  const usage = z.looseObject({ ...tokens, ...cacheTokens });
  const requests = z.looseObject({ count: number, cost: number });
  const codeChanges = { linesAdded: number, linesRemoved: number, filesModified: z.array(string) };
  return {
    "session.start": z.looseObject({
      sessionId: string,
      version: z.literal(1),
      producer: z.literal("turnloop"),
      producerVersion: string,
      startTime: string,
      cwd: string,
      model: string,
    }),
    "session.shutdown": z.looseObject({
      shutdownType: z.enum(["routine", "error"]),
      errorReason: optionalString,
      sessionStartTime: number,
      totalApiDurationMs: number,
      modelMetrics: z.record(string, z.looseObject({ requests, usage })),
      codeChanges: z.looseObject(codeChanges),
      currentModel: string,
      currentTokens: number,
      eventsFileSizeBytes: optionalNumber,
    }),
    "session.compaction_start": z.looseObject({
      trigger,
      currentTokens: number,
      tokenLimit: number,
    }),
    "session.compaction_complete": z.looseObject({
      success: z.boolean(),
      trigger,
      preCompactionTokens: number,
      postCompactionTokens: optionalNumber,
      messagesRemoved: optionalNumber,
      summaryContent: optionalString,
      customInstructions: optionalString,
      error: optionalString,
    }),
  };
}

/** A prompt block as the user gave it (`user.message.contentBlocks`): an object with a `type`. */
function isPromptBlock(value: unknown): value is PromptBlock {
  return isPlainObject(value) && typeof value.type === "string";
}

/** `session.resume` and `user.message` (a model request's events: {@link turnSchemas}). */
function conversationSchemas(parts: Parts) {
  const { string, number, boolean, optionalString, optionalNumber, image } = parts;
  const repairNote = z.looseObject({
    line: number,
    offset: number,
    length: number,
    reason: z.enum([
      "torn_tail",
      "invalid_json",
      "invalid_event",
      "duplicate_id",
      "second_start",
      "unknown_parent",
    ]),
  });
  return {
    "session.resume": z.looseObject({
      resumeTime: string,
      eventCount: number,
      repaired: z.array(repairNote),
      interruptedToolCalls: optionalNumber,
      interruptedTurns: optionalNumber,
      interruptedCompactions: optionalNumber,
      interruptedPrompts: optionalNumber,
      notice: optionalString,
      continuePendingWork: boolean.optional(),
      sessionWasActive: boolean.optional(),
    }),
    "user.message": z.looseObject({
      content: string,
      source: z.enum(["user", "autopilot", "hook"]),
      attachments: z.array(parts.jsonValue).optional(),
      contentBlocks: z.array(z.custom<PromptBlock>(isPromptBlock)).optional(),
      images: z.array(image.extend({ uri: optionalString })).optional(),
      agentMode: optionalString,
      promptId: optionalString,
    }),
  };
}

/** A model request's turn, usage and retries. */
function turnSchemas(parts: Parts) {
  const { string, number, optionalNumber, errorType } = parts;
  const tokens = { inputTokens: optionalNumber, outputTokens: optionalNumber };
  const cacheTokens = { cacheReadTokens: optionalNumber, cacheWriteTokens: optionalNumber };
  return {
    "assistant.turn_start": z.looseObject({
      turnId: string,
      purpose: z.enum(["compaction", "title"]).optional(),
    }),
    "assistant.usage": z.looseObject({
      model: string,
      turnId: string,
      cost: optionalNumber,
      ...tokens,
      ...cacheTokens,
      reasoningTokens: optionalNumber,
    }),
    "assistant.retry": z.looseObject({
      turnId: string,
      attempt: number,
      statusCode: optionalNumber,
      errorType,
      errorMessage: string,
      delayMs: number,
    }),
    "assistant.turn_end": z.looseObject({
      turnId: string,
      status: z.enum(["completed", "cancelled", "failed", "interrupted", "error"]),
      finishReason: parts.finishReason.optional(),
      errorType: errorType.optional(),
      stopReason: parts.stopReason.optional(),
    }),
  };
}

/** A model's reply and the tool calls it asked for. */
function toolSchemas(parts: Parts) {
  const { string, optionalString, jsonObject, providerMetadata, image } = parts;
  const toolRequest = z.looseObject({
    toolCallId: string,
    name: string,
    arguments: jsonObject,
    rawArguments: optionalString,
    argumentsError: z.enum(["truncated", "invalid_json"]).optional(),
    providerMetadata,
  });
  const toolErrorCode = z.enum([
    "unknown_tool",
    "invalid_arguments",
    "truncated_arguments",
    "denied",
    "rejected",
    "cancelled",
    "interrupted",
    "limit_reached",
    "failed",
  ]);
  return {
    "assistant.message": z.looseObject({
      messageId: string,
      content: string,
      reasoning: optionalString,
      reasoningParts: z.array(z.looseObject({ text: string, providerMetadata })).optional(),
      toolRequests: z.array(toolRequest),
      finishReason: parts.finishReason,
      providerMetadata,
      interrupted: z.literal(true).optional(),
      error: z.looseObject({ errorType: parts.errorType, message: string }).optional(),
    }),
    "tool.execution_start": z.looseObject({
      toolCallId: string,
      toolName: string,
      arguments: jsonObject,
      mcpServerName: optionalString,
      mcpToolName: optionalString,
    }),
    "tool.execution_complete": z.looseObject({
      toolCallId: string,
      toolName: string,
      success: parts.boolean,
      result: z.looseObject({ content: string, images: z.array(image).optional() }),
      error: z.looseObject({ message: string, code: toolErrorCode }).optional(),
      exitCode: parts.optionalNumber,
    }),
  };
}

/** Permissions, the plan, instructions and the ends of a prompt. */
function controlSchemas({ string, number, boolean, optionalString, ...parts }: Parts) {
  const ids = { requestId: string, toolCallId: string };
  const planEntry = z.looseObject({
    content: string,
    priority: z.enum(["high", "medium", "low"]),
    status: z.enum(["pending", "in_progress", "completed"]),
  });
  const instructionFile = z.looseObject({
    path: string,
    scope: z.enum(["user", "project", "system-prompt-file"]),
    bytes: number,
    truncated: boolean,
  });
  return {
    "permission.requested": z.looseObject({
      ...ids,
      toolName: string,
      kind: string,
      title: string,
      outsideSandbox: optionalString,
    }),
    "permission.completed": z.looseObject({
      ...ids,
      decision: z.enum(["allowed", "denied", "cancelled"]),
      scope: z.enum(["once", "session"]),
      rule: optionalString,
      reason: optionalString,
    }),
    "session.plan_updated": z.looseObject({ entries: z.array(planEntry) }),
    "session.instructions_loaded": z.looseObject({
      files: z.array(instructionFile),
      appendedBytes: parts.optionalNumber,
    }),
    "session.task_complete": z.looseObject({ summary: string, success: boolean }),
    "session.autopilot_stopped": z.looseObject({
      reason: z.literal("cap_reached"),
      continues: number,
    }),
    "session.error": z.looseObject({
      errorType: parts.errorType,
      message: string,
      statusCode: parts.optionalNumber,
    }),
    abort: z.looseObject({ reason: string, droppedPromptIds: z.array(string).optional() }),
  };
}

/** The SDK app's events: external tools, hooks, names, modes, notes, rewinds, grants. */
function appSchemas({ string, number, optionalString, jsonObject, hookType, ...parts }: Parts) {
  const note = { message: string, url: optionalString };
  const ids = { requestId: string, toolCallId: string };
  return {
    "external_tool.requested": z.looseObject({
      ...ids,
      sessionId: string,
      toolName: string,
      arguments: jsonObject,
      workingDirectory: string,
    }),
    "external_tool.completed": z.looseObject({
      ...ids,
      status: z.enum(["completed", "failed", "cancelled"]),
    }),
    "hook.start": z.looseObject({ hookInvocationId: string, hookType, input: jsonObject }),
    "hook.end": z.looseObject({
      hookInvocationId: string,
      hookType,
      success: parts.boolean,
      ...{
        output: parts.jsonValue.optional(),
        error: z.looseObject({ message: string }).optional(),
      },
    }),
    "session.model_change": z.looseObject({
      previousModel: optionalString,
      newModel: string,
      previousReasoningEffort: optionalString,
      reasoningEffort: optionalString,
    }),
    "session.mode_changed": z.looseObject({ previousMode: string, newMode: string }),
    "session.info": z.looseObject({ infoType: string, ...note, tip: optionalString }),
    "session.warning": z.looseObject({ warningType: string, ...note }),
    "session.snapshot_rewind": z.looseObject({ upToEventId: string, eventsRemoved: number }),
    "session.title_changed": z.looseObject({ title: string }),
    "session.grants_changed": z.looseObject({ allow: z.array(string), deny: z.array(string) }),
  };
}
