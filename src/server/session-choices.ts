/**
 * What a server session's next prompts run on: the model (and its shared provider), the reasoning
 * effort, the mode, and whether the model came from the app's BYOK `provider`. A change returns
 * the event that records it (Copilot's `session.model_change`, `session.mode_changed`).
 */

import type { EventInput } from "../events/events.js";
import type { ModelConfiguration } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { SessionMode } from "../protocol/copilot.js";
import type { SessionHost } from "../session/host.js";

export class SessionChoices {
  model: ModelConfiguration;
  provider: Provider;
  reasoningEffort: string | undefined;
  mode: SessionMode;
  /**
   * The model came from the app's BYOK `provider`: `session.model.switchTo` then keeps that
   * endpoint and key and changes only the model name.
   */
  byok = false;

  constructor(
    private readonly host: SessionHost,
    model: ModelConfiguration,
    mode: SessionMode,
  ) {
    this.model = model;
    this.provider = host.provider(model);
    this.mode = mode;
  }

  /** Sets the mode. @returns the event recording the change, if it is one. */
  setMode(mode: SessionMode): EventInput | undefined {
    const previousMode = this.mode;
    this.mode = mode;
    return previousMode === mode
      ? undefined
      : { type: "session.mode_changed", data: { previousMode, newMode: mode } };
  }

  /**
   * Switches the model (and the reasoning effort, when given).
   * @returns the event recording the change, if it is one.
   */
  switchModel(model: ModelConfiguration, reasoningEffort?: string): EventInput | undefined {
    const previous = { model: this.model.id, effort: this.reasoningEffort };
    this.model = model;
    this.provider = this.host.provider(model);
    this.reasoningEffort = reasoningEffort ?? this.reasoningEffort;
    if (previous.model === model.id && previous.effort === this.reasoningEffort) {
      return undefined;
    }
    return {
      type: "session.model_change",
      data: {
        previousModel: previous.model,
        newModel: model.id,
        ...(previous.effort === undefined ? {} : { previousReasoningEffort: previous.effort }),
        ...(this.reasoningEffort === undefined ? {} : { reasoningEffort: this.reasoningEffort }),
      },
    };
  }

  /** The current model's endpoint and key with the model `name` (`<provider>:` prefix dropped). */
  withModelName(name: string): ModelConfiguration {
    const modelName = name.includes(":") ? name.slice(name.indexOf(":") + 1) : name;
    return { ...this.model, id: `${this.model.provider}:${modelName}`, modelName };
  }
}
