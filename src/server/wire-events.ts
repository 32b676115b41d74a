/**
 * Events as the Copilot SDK reads them: the log keeps turnloop's `<provider>:<model>` ids, the
 * SDK face reports bare model ids as the Copilot CLI does (`gpt-4.1`, not `openai-chat:gpt-4.1`):
 * `session.start` and `session.resume` carry `selectedModel` (and the reasoning effort), and
 * `session.model_change`, `assistant.usage` and `session.shutdown` name models bare. Every other event is unchanged.
 */

import type { History } from "../agent/history.js";
import type { EventInput, SessionEvent } from "../events/events.js";
import { hasProviderPrefix } from "../llm/models.js";

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
    default:
      return event;
  }
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
