/**
 * What a server session's next prompts run on: the model (and its shared provider), the reasoning
 * effort, the mode, and whether the model came from the app's BYOK `provider`. A change returns
 * the event that records it (Copilot's `session.model_change`, `session.mode_changed`). A resumed
 * session's model may not run here (its endpoint or profile is not configured): it is kept by id,
 * unresolved, until it resolves or the app switches it ({@link SessionChoices.unavailable}).
 */

import type { EventInput } from "../events/events.js";
import type { ModelConfiguration } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { SessionMode } from "../protocol/copilot.js";
import type { SessionHost } from "../session/host.js";
import { invalidParams } from "./params.js";

/** How a server session starts: its model (or why it cannot run here), mode and source. */
export interface SessionStart {
  model: ModelConfiguration | UnresolvedModel;
  mode: SessionMode;
  source: "new" | "resume";
}

/** A model that cannot run here: its id, and why (host-models.ts's words). */
export interface UnresolvedModel {
  id: string;
  problem: string;
}

export class SessionChoices {
  private resolved: { model: ModelConfiguration; provider: Provider } | UnresolvedModel;
  reasoningEffort: string | undefined;
  mode: SessionMode;
  /**
   * The model came from the app's BYOK `provider`: `session.model.switchTo` then keeps that
   * endpoint and key and changes only the model name.
   */
  byok = false;

  constructor(
    private readonly host: SessionHost,
    model: ModelConfiguration | UnresolvedModel,
    mode: SessionMode,
  ) {
    this.resolved = "problem" in model ? model : { model, provider: host.provider(model) };
    this.mode = mode;
  }

  /** The id of the model of the next prompts, whether or not it can run here. */
  get modelId(): string {
    return "model" in this.resolved ? this.resolved.model.id : this.resolved.id;
  }

  /** The model of the next prompts. @throws Error with the problem when it cannot run here. */
  get model(): ModelConfiguration {
    return this.runnable().model;
  }

  /** The model's provider. @throws Error as {@link model}. */
  get provider(): Provider {
    return this.runnable().provider;
  }

  /**
   * Why the model cannot run here, resolving it again first (a config file may define its
   * profile by now); `undefined` when it can.
   */
  unavailable(): string | undefined {
    if ("model" in this.resolved) {
      return undefined;
    }
    const { id } = this.resolved;
    const resolution = this.host.resolveModel(id);
    if (!resolution.ok) {
      const problem = this.host.removedProfileProblem(id) ?? resolution;
      this.resolved = { id, problem: problem.message.replace(/^turnloop: /, "") };
      return this.resolved.problem;
    }
    const model = resolution.configuration;
    this.resolved = { model, provider: this.host.provider(model) };
    return undefined;
  }

  /**
   * Refuses `method` while the model cannot run here ({@link unavailable}), as a request the app
   * can mend: it switches the model.
   * @throws ResponseError `-32602` "`<method>`: `<why>`; or switch the session's model
   *   (session.model.switchTo). `<outcome>`".
   */
  refuseUnrunnable(method: string, outcome: string): void {
    const problem = this.unavailable();
    if (problem !== undefined) {
      throw invalidParams(
        `${method}: ${problem.replace(/\.$/, "")}; or switch the session's model (session.model.switchTo). ${outcome}`,
      );
    }
  }

  private runnable(): { model: ModelConfiguration; provider: Provider } {
    const problem = this.unavailable();
    if (problem !== undefined || !("model" in this.resolved)) {
      throw new Error(problem);
    }
    return this.resolved;
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
    const previous = { model: this.modelId, effort: this.reasoningEffort };
    this.resolved = { model, provider: this.host.provider(model) };
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
