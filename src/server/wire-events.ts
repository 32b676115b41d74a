/**
 * Events as the Copilot SDK reads them (its `dist/generated/session-events.d.ts`). The log keeps
 * turnloop's `<provider>:<model>` ids, the SDK face reports bare model ids as the Copilot CLI does
 * (`gpt-4.1`, not `openai-chat:gpt-4.1`): `session.start` and `session.resume` carry
 * `selectedModel` (and the reasoning effort) and `context: {cwd}`, and `session.model_change`,
 * `assistant.usage` and `session.shutdown` name models bare. `session.start` also carries
 * Copilot's required `copilotVersion` (turnloop's version: no Copilot CLI runs) and
 * `context: {cwd}`. `assistant.usage` is marked
 * `ephemeral: true`, as Copilot's type has it always (the log keeps it: `cost` and the token
 * counts are read back from it). The turnloop-only progress marks `assistant.tool_call_start` and
 * `tool.execution_running` are not sent ({@link onCopilotWire}); `assistant.idle`, which the log
 * does not have, is ({@link assistantIdleBefore}). A
 * `tool.execution_complete` whose call the one fold calls `failed` (a command that exited
 * non-zero or was killed: session-model/tool-call.ts `readResult`) has `success: false` and an
 * `error` naming how it ended (`exit code 2`), as every other face shows it ✗ (the log keeps
 * `success: true`: the model got the output, not an error; the Copilot wire says only that
 * `success` is the call's outcome); its result is in Copilot's words (result-wording.ts
 * `resultOnCopilotWire`). A `user.message` carries the prompt as the user gave it in
 * `content` and the model's text in `transformedContent` ({@link userMessageOnWire}); an
 * `assistant.message` with reasoning also carries it as Copilot's `reasoningText`, and comes after
 * Copilot's `assistant.reasoning` ({@link reasoningBefore}); an `assistant.reasoning_delta` also
 * carries Copilot's `reasoningId`. Every other event is unchanged.
 */

import type { History } from "../agent/history.js";
import { derivedId } from "../events/derived-id.js";
import type { EventInput, SessionEvent, SessionEventOf } from "../events/events.js";
import { hasProviderPrefix } from "../llm/models.js";
import { givenPrompt } from "../session/prompt-attachments.js";
import { commandEnding, readResult } from "../session/session-model/tool-call.js";
import { resultOnCopilotWire } from "./result-wording.js";

/** `openai-chat:gpt-4.1` → `gpt-4.1`; an id without a provider prefix is returned as it is. */
export function bareModelId(id: string): string {
  return hasProviderPrefix(id) ? id.slice(id.indexOf(":") + 1) : id;
}

/**
 * What the session runs on now and where, for `session.resume` (its log record names no model
 * and no folder; Copilot's `ResumeData` has `selectedModel` and `context: {cwd}`).
 */
export interface CurrentModel {
  id: string;
  reasoningEffort: string | undefined;
  cwd: string;
}

/**
 * A stored log as the SDK face sends it (`session.getMessages`): each event as
 * {@link modelNamesOnWire} sends it, a `session.resume` with the model it was resumed with (the
 * one in force then, or the switch recorded right after it) and the session's folder.
 */
export function historyOnWire(events: readonly SessionEvent[]): object[] {
  let model: string | undefined;
  let cwd: string | undefined;
  return events.flatMap((event, index) => {
    if (event.type === "session.start") {
      ({ model, cwd } = event.data);
    } else if (event.type === "session.model_change") {
      model = event.data.newModel;
    }
    const next = events[index + 1];
    const resumedWith = next?.type === "session.model_change" ? next.data.newModel : model;
    const wire =
      event.type === "session.resume" && resumedWith !== undefined && cwd !== undefined
        ? modelNamesOnWire(event, { id: resumedWith, reasoningEffort: undefined, cwd })
        : modelNamesOnWire(event);
    const reasoning = reasoningBefore(event);
    return reasoning === undefined ? [wire] : [reasoning, wire];
  });
}

/** `event` as the SDK face sends it (see above); other events as they are. */
export function modelNamesOnWire(event: SessionEvent, current?: CurrentModel): object {
  switch (event.type) {
    case "session.start": {
      const { model, cwd, producerVersion } = event.data;
      const copilot = { copilotVersion: producerVersion, context: { cwd } };
      return { ...event, data: { ...event.data, selectedModel: bareModelId(model), ...copilot } };
    }
    case "session.resume": {
      if (current === undefined) {
        return event;
      }
      const effort = current.reasoningEffort;
      const selected = {
        selectedModel: bareModelId(current.id),
        ...(effort === undefined ? {} : { reasoningEffort: effort }),
        context: { cwd: current.cwd },
      };
      return { ...event, data: { ...event.data, ...selected } };
    }
    case "session.model_change": {
      const { previousModel, newModel } = event.data;
      const previous =
        previousModel === undefined ? {} : { previousModel: bareModelId(previousModel) };
      return { ...event, data: { ...event.data, ...previous, newModel: bareModelId(newModel) } };
    }
    case "assistant.usage": {
      const data = { ...event.data, model: bareModelId(event.data.model) };
      return { ...event, ephemeral: true, data };
    }
    case "session.shutdown": {
      const { modelMetrics, currentModel } = event.data;
      const metrics = Object.entries(modelMetrics).map(([id, metric]) => [bareModelId(id), metric]);
      const names = { currentModel: bareModelId(currentModel) };
      return {
        ...event,
        data: { ...event.data, ...names, modelMetrics: Object.fromEntries(metrics) },
      };
    }
    case "user.message":
      return userMessageOnWire(event);
    case "assistant.reasoning_delta":
      // Copilot's `AssistantReasoningDeltaData`: the block it belongs to (see reasoningBefore).
      return { ...event, data: { ...event.data, reasoningId: event.data.messageId } };
    case "assistant.message":
      // Copilot's `AssistantMessageData` names the reasoning `reasoningText`.
      return event.data.reasoning === undefined
        ? event
        : { ...event, data: { ...event.data, reasoningText: event.data.reasoning } };
    case "tool.execution_complete":
      return resultOnCopilotWire(failedCommandOnWire(event));
    case "abort":
      return abortOnWire(event);
    default:
      return event;
  }
}

/** The `abort` reason of a cancel nobody named: the user's (events/errors.ts `abortReason`). */
const USER_CANCEL = "cancelled by the user";

/**
 * Copilot's `AbortReason` (`user_initiated | remote_command | user_abort |
 * autopilot_credit_limit`, `AbortData` in the Copilot SDK's `generated/session-events.d.ts`) for
 * the cancel the user asked for (`session.abort`, or a cancel on another face of the session:
 * "cancelled by the user…"): `user_initiated`, turnloop's text kept beside it as `message`. A
 * cancel no Copilot reason describes (the app detached or went away, `session.suspend`, the
 * server stopping, a signal) keeps its text as `reason` (README, "Events that differ").
 */
function abortOnWire(event: SessionEventOf<"abort">): SessionEvent | object {
  const { reason } = event.data;
  return reason === USER_CANCEL || reason.startsWith(`${USER_CANCEL}:`)
    ? { ...event, data: { ...event.data, reason: "user_initiated", message: reason } }
    : event;
}

/**
 * A prompt as Copilot's `user.message` carries it: `content` as the user gave it (the text of
 * session/prompt-attachments.ts `givenPrompt`), `transformedContent` the text the model got, when
 * that differs (attachments, resources or `!command` output rendered into it); `contentBlocks`
 * as the client sent them (the log keeps their text in `content` only).
 */
function userMessageOnWire(event: SessionEventOf<"user.message">): SessionEvent | object {
  const { text, blocks } = givenPrompt(event.data);
  if (blocks === undefined && text === event.data.content) {
    return event;
  }
  const data = blocks === undefined ? event.data : { ...event.data, contentBlocks: [...blocks] };
  return text === event.data.content
    ? { ...event, data }
    : { ...event, data: { ...data, content: text, transformedContent: event.data.content } };
}

/** A successful call whose command failed as the SDK face reports it (see above). */
function failedCommandOnWire(
  event: SessionEventOf<"tool.execution_complete">,
): SessionEventOf<"tool.execution_complete"> {
  if (!event.data.success) {
    return event;
  }
  const reading = readResult(event.data);
  const ending = commandEnding(reading);
  if (reading.status !== "failed" || ending === undefined) {
    return event;
  }
  const error = { message: ending, code: "failed" as const };
  return { ...event, data: { ...event.data, success: false, error } };
}

/**
 * Copilot's context-window report after a model call (`session.usage_info`): the tokens the
 * context holds now (the request's input and the reply, or the history's estimate when larger),
 * the model's window `tokenLimit` (tokens) and the messages in the history.
 */
export function usageInfo(history: History, tokenLimit: number): EventInput {
  return {
    type: "session.usage_info",
    data: {
      currentTokens: history.meter.current(0),
      tokenLimit,
      messagesLength: history.messages.length,
    },
  };
}

/**
 * Whether the SDK face sends `event`: not turnloop's own progress marks, which Copilot's wire
 * does not have (`assistant.tool_call_start`: the model began a tool call;
 * `tool.execution_running`: the tool itself runs, after its permission). The terminal and ACP
 * faces show them; an app learns the same from `assistant.message`'s `toolRequests`,
 * `tool.execution_start` and `permission.completed`.
 */
export function onCopilotWire(event: SessionEvent): boolean {
  return event.type !== "assistant.tool_call_start" && event.type !== "tool.execution_running";
}

/**
 * Copilot's `assistant.reasoning` (`{content, reasoningId}`, persisted in Copilot's log: its
 * generated `AssistantReasoningData`) for a stored `assistant.message` with reasoning, to send
 * just before it, as the Copilot CLI does (the log keeps the reasoning in the message only). Its
 * `reasoningId` is the reply's `messageId`, the one every `assistant.reasoning_delta` of the reply
 * carries on the wire ({@link modelNamesOnWire}); its `parentId` and `timestamp` are the
 * message's, its `id` derived from the message's (events/derived-id.ts), so that live
 * and every `session.getMessages` it is the same event. Undefined for any other event and a reply
 * without reasoning.
 */
export function reasoningBefore(event: SessionEvent): object | undefined {
  if (event.type !== "assistant.message" || event.ephemeral === true) {
    return undefined;
  }
  const { reasoning, messageId } = event.data;
  if (reasoning === undefined || reasoning === "") {
    return undefined;
  }
  return {
    type: "assistant.reasoning",
    data: { content: reasoning, reasoningId: messageId },
    id: derivedId(event.id, "assistant.reasoning"),
    timestamp: event.timestamp,
    parentId: event.parentId,
  };
}

/** What {@link copilotEventsBefore} answers for most events: one array, never changed. */
const NOTHING_BEFORE: readonly object[] = Object.freeze([]);

/**
 * What the SDK face sends before `event`, in order: Copilot's `assistant.idle` where the loop
 * stopped ({@link assistantIdleBefore}), Copilot's `assistant.reasoning` before a reply with
 * reasoning ({@link reasoningBefore}). For every other event (each streamed delta among them)
 * the same empty array, so that a delta allocates nothing here.
 */
export function copilotEventsBefore(event: SessionEvent): readonly object[] {
  const idle = assistantIdleBefore(event);
  const reasoning = reasoningBefore(event);
  if (idle === undefined) {
    return reasoning === undefined ? NOTHING_BEFORE : [reasoning];
  }
  return reasoning === undefined ? [idle] : [idle, reasoning];
}

/**
 * Copilot's `assistant.idle` (ephemeral, `{aborted?}`), "emitted whenever the main agent's
 * processing loop goes idle", to send before `event` when `event` follows such a stop: before
 * every `session.idle` (Copilot sends `assistant.idle`, then `session.idle`), and before an
 * autopilot continuation's `user.message` (the loop stopped without `task_complete` and goes
 * on). Its `parentId` is `event`'s, the last stored event, its `id` derived from `event`'s (the
 * same for every app attached). Otherwise undefined.
 */
export function assistantIdleBefore(event: SessionEvent): object | undefined {
  const continues = event.type === "user.message" && event.data.source === "autopilot";
  if (event.type !== "session.idle" && !continues) {
    return undefined;
  }
  const aborted = event.type === "session.idle" && event.data.stopReason === "cancelled";
  return {
    type: "assistant.idle",
    data: aborted ? { aborted: true } : {},
    id: derivedId(event.id, "assistant.idle"),
    timestamp: event.timestamp,
    parentId: event.parentId,
    ephemeral: true,
  };
}
