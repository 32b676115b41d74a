import type { FaceOptions } from "../cli/arguments.js";
import { providerTuning } from "../cli/face-settings.js";
import { createProvider, type ModelConfiguration, resolveModel } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";

/**
 * The models of one ACP connection (ACP v1 session-config-options, category `model`): resolved
 * with the same settings as the CLI (`--model` / `TURNLOOP_MODEL`, `--base-url` /
 * `TURNLOOP_BASE_URL`, keys), offered as choices, and one provider per model, reused across
 * prompts and sessions.
 */
export class ModelCatalog {
  private readonly face: FaceOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly providers = new Map<string, Provider>();

  constructor(face: FaceOptions, env: NodeJS.ProcessEnv) {
    this.face = face;
    this.env = env;
  }

  /** Resolves `<provider>:<model>` (default: the configured model); a message when it cannot. */
  resolve(
    modelId: string | undefined = this.face.model,
  ): { ok: true; configuration: ModelConfiguration } | { ok: false; message: string } {
    const { baseUrl } = this.face;
    return resolveModel(
      {
        ...(modelId === undefined ? {} : { model: modelId }),
        ...(baseUrl === undefined ? {} : { baseUrl }),
      },
      this.env,
    );
  }

  /** The configured model, when it resolves. */
  configured(): ModelConfiguration | undefined {
    const resolved = this.resolve();
    return resolved.ok ? resolved.configuration : undefined;
  }

  /** Why there is no configured model, in words a person can act on. */
  problem(): string {
    const resolved = this.resolve();
    return resolved.ok ? "" : resolved.message;
  }

  /** A reopened session keeps its own model (`--model` overrides it), else the configured one. */
  forSession(sessionModel: string): ModelConfiguration | undefined {
    const own = this.resolve(this.face.model ?? sessionModel);
    return own.ok ? own.configuration : this.configured();
  }

  /**
   * The `model` option's values: the current model, the configured one, the session's own, and
   * those listed in `TURNLOOP_MODELS` (comma-separated), each once and only if it resolves.
   */
  choices(current: string, sessionModel: string): string[] {
    const listed = (this.env.TURNLOOP_MODELS ?? "").split(",").map((id) => id.trim());
    const candidates = [this.face.model ?? this.env.TURNLOOP_MODEL, sessionModel, ...listed];
    const choices = [current];
    for (const id of candidates) {
      if (id !== undefined && id !== "" && !choices.includes(id) && this.resolve(id).ok) {
        choices.push(id);
      }
    }
    return choices;
  }

  /** The provider for `configuration`, created once per model id. */
  provider(configuration: ModelConfiguration): Provider {
    let provider = this.providers.get(configuration.id);
    if (provider === undefined) {
      provider = createProvider(configuration, providerTuning(this.env));
      this.providers.set(configuration.id, provider);
    }
    return provider;
  }
}
