/**
 * Events as the Copilot SDK reads them: the log keeps turnloop's `<provider>:<model>` ids, the
 * SDK face reports bare model ids as the Copilot CLI does (`gpt-4.1`, not `openai-chat:gpt-4.1`):
 * `session.start` and `session.resume` carry `selectedModel` (and the reasoning effort), and
 * `session.model_change`, `assistant.usage` and `session.shutdown` name models bare. A
 * `tool.execution_complete` whose call the one fold calls `failed` (a command that exited
 * non-zero or was killed: session-model/tool-call.ts `readResult`) has `success: false` and an
 * `error` naming how it ended (`exit code 2`), as every other face shows it ✗ (the log keeps
 * `success: true`: the model got the output, not an error; the Copilot wire says only that
 * `success` is the call's outcome). Every other event is unchanged.
 */

import type { History } from "../agent/history.js";
import type { EventInput, SessionEvent, SessionEventOf } from "../events/events.js";
import { hasProviderPrefix } from "../llm/models.js";
import { commandEnding, readResult } from "../session/session-model/tool-call.js";

/** `openai-chat:gpt-4.1` → `gpt-4.1`; an id without a provider prefix is returned as it is. */
export function bareModelId(id: string): string {
  return hasProviderPrefix(id) ? id.slice(id.indexOf(":") + 1) : id;
}

/** What the session runs on now, for `session.resume` (its log record names no model). */
export interface CurrentModel {
  id: string;
  reasoningEffort: string | undefined;
}

/** `event` with the SDK face's model names (see above); other events as they are. */
export function modelNamesOnWire(event: SessionEvent, current?: CurrentModel): object {
  switch (event.type) {
    case "session.start":
      return { ...event, data: { ...event.data, selectedModel: bareModelId(event.data.model) } };
    case "session.resume": {
      if (current === undefined) {
        return event;
      }
      const effort = current.reasoningEffort;
      const selected = {
        selectedModel: bareModelId(current.id),
        ...(effort === undefined ? {} : { reasoningEffort: effort }),
      };
      return { ...event, data: { ...event.data, ...selected } };
    }
    case "session.model_change": {
      const { previousModel, newModel } = event.data;
      const previous =
        previousModel === undefined ? {} : { previousModel: bareModelId(previousModel) };
      return { ...event, data: { ...event.data, ...previous, newModel: bareModelId(newModel) } };
    }
    case "assistant.usage":
      return { ...event, data: { ...event.data, model: bareModelId(event.data.model) } };
    case "session.shutdown": {
      const { modelMetrics, currentModel } = event.data;
      const metrics = Object.entries(modelMetrics).map(([id, metric]) => [bareModelId(id), metric]);
      const names = { currentModel: bareModelId(currentModel) };
      return {
        ...event,
        data: { ...event.data, ...names, modelMetrics: Object.fromEntries(metrics) },
      };
    }
    case "tool.execution_complete":
      return failedCommandOnWire(event);
    default:
      return event;
  }
}

/** A successful call whose command failed as the SDK face reports it (see above). */
function failedCommandOnWire(event: SessionEventOf<"tool.execution_complete">): SessionEvent {
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
