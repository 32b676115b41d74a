/**
 * How each face names the settings of a session's model in what it tells the user (a missing
 * model, key or context window): the command line's flags and variables, the SDK server's session
 * options, `turnloop acp`'s agent server settings.
 */

import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import type { ProviderFailure } from "./provider.js";

/**
 * How a face names the settings that a model's configuration error (or a prompt too large for
 * its context window, agent/compaction-guard.ts `promptBeyondWindow`) asks its user to set: the
 * command line its flags and variables ({@link COMMAND_LINE_SETTINGS}), the SDK server a
 * session's options and the server's environment, `turnloop acp` the editor's agent server
 * settings. Each is a phrase put into a sentence, e.g. "Set <model> to <provider>:<model>".
 */
export interface ModelSettingNames {
  /** Where the model of a session is set, e.g. `--model or TURNLOOP_MODEL`. */
  model: string;
  /** Where an `openai-compatible` model's endpoint is set, e.g. `--base-url or TURNLOOP_BASE_URL`. */
  baseUrl: string;
  /**
   * How the user gives a session another model once the server said it has none of the name,
   * a phrase after "the server has no model "x": ", e.g. `switch with /model`.
   */
  switchModel: string;
  /** Where another model is given to a session being reopened, e.g. `--model <provider>:<model>`. */
  resumeModel: string;
  /** Where a variable (a provider's key) is set: "" for the process's own environment as typed,
   * or a phrase that starts with a space, e.g. ` in the server's environment`. */
  environment: string;
  /** Where the model's context window is set, e.g. `--context-window or TURNLOOP_CONTEXT_WINDOW`. */
  contextWindow: string;
  /** The config file whose `"model"` keeps a model for every run, if the face reads one. */
  configFile?: string;
}

/** The command line's names: its flags and the variables of the shell it is typed in. */
export const COMMAND_LINE_SETTINGS: ModelSettingNames = {
  model: "--model or TURNLOOP_MODEL",
  switchModel: "choose another with --model or TURNLOOP_MODEL",
  baseUrl: "--base-url or TURNLOOP_BASE_URL",
  resumeModel: "--model <provider>:<model>",
  environment: "",
  contextWindow: "--context-window or TURNLOOP_CONTEXT_WINDOW",
};

/** What to tell a user with no model configured: one short message, in `names`' words. */
export function noModelMessage(names: ModelSettingNames = COMMAND_LINE_SETTINGS): string {
  return (
    `turnloop: no model configured. Set ${names.model} to <provider>:<model>, e.g. ` +
    `anthropic:claude-sonnet-4-5 (with ANTHROPIC_API_KEY${names.environment}), openai:gpt-5 ` +
    `(with OPENAI_API_KEY), ollama:qwen3, or openai-compatible:<model> with ${names.baseUrl}` +
    (names.configFile === undefined
      ? "."
      : `; "model" (and "baseUrl") in ${names.configFile} keep it for every run.`)
  );
}

/**
 * The command line's names ({@link COMMAND_LINE_SETTINGS}) with the user's config file in the
 * TURNLOOP_HOME folder `home` (`config.json`, README "Config files"), `~/…` under the home folder.
 */
export function commandLineSettings(home: string): ModelSettingNames {
  const file = join(home, "config.json");
  const inHome = relative(homedir(), file);
  const shown = inHome.startsWith("..") || isAbsolute(inHome) ? file : `~/${inHome}`;
  return { ...COMMAND_LINE_SETTINGS, configFile: shown };
}

/**
 * `failure` with its cure when the server has no model of the name asked for
 * (`ProviderFailure.unknownModel`, a 404 from the wire's own API): `…; the server has no model
 * "x": switch with /model`, in `names`' words (trial r3s46 F5); `failure` itself otherwise.
 */
export function withUnknownModelCure(
  failure: ProviderFailure,
  names: ModelSettingNames = COMMAND_LINE_SETTINGS,
): ProviderFailure {
  const model = failure.unknownModel;
  return model === undefined
    ? failure
    : {
        ...failure,
        message: `${failure.message}; the server has no model "${model}": ${names.switchModel}`,
      };
}
