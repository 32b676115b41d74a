import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage } from "../events/errors.js";
import { hasProviderPrefix, PROVIDER_NAMES } from "../llm/models.js";
import { parseRule } from "../permissions/permission-rules.js";
import type { SessionOptions } from "./agent-settings.js";
import { ConfigError, loadConfig } from "./config.js";
import { type EffectiveSettings, effectiveSettings, environmentFor } from "./effective-settings.js";
import type { FaceOptions } from "./face-options.js";
import { turnloopHome } from "./paths.js";

/**
 * What every face does with its {@link FaceOptions} before opening sessions: check the cwd, apply
 * the config files, read `--system-prompt-file`.
 */

/**
 * `--system-prompt-file` read, `--append-system-prompt` as given, and where instructions are read
 * from (none with `--no-instructions`).
 * @throws Error naming the file when it cannot be read.
 */
export function systemPromptOptions(
  options: FaceOptions,
  home: string,
): Pick<SessionOptions, "systemPrompt" | "appendSystemPrompt" | "instructions"> {
  const base = {
    ...(options.noInstructions === true ? {} : { instructions: { home } }),
    ...(options.appendSystemPrompt === undefined
      ? {}
      : { appendSystemPrompt: options.appendSystemPrompt }),
  };
  if (options.systemPromptFile === undefined) {
    return base;
  }
  const path = resolve(options.cwd, options.systemPromptFile);
  try {
    return { ...base, systemPrompt: { path, text: readFileSync(path, "utf8") } };
  } catch (error) {
    throw new Error(`cannot read --system-prompt-file ${path}: ${errorMessage(error)}`);
  }
}

/**
 * Why `cwd` cannot be the working directory (missing, or not a folder), or undefined when it can.
 * Checked before anything runs, so no tool creates the tree of a mistyped `--cwd`.
 */
export function workingDirectoryProblem(cwd: string): string | undefined {
  try {
    return statSync(cwd).isDirectory() ? undefined : `--cwd ${cwd} is not a directory`;
  } catch {
    return `--cwd ${cwd} does not exist`;
  }
}

/** Face options with the config files applied, the environment to read models from, and warnings. */
export type ConfiguredFace<T extends FaceOptions> =
  | {
      ok: true;
      options: T;
      env: NodeJS.ProcessEnv;
      settings: EffectiveSettings;
      warnings: string[];
    }
  | { ok: false; message: string };

/**
 * Applies `$TURNLOOP_HOME/config.json` and `<cwd>/.turnloop/config.json` under the flags and the
 * environment (flags > env > project > user): model (a `<profile>:<model>` resolved), base URL,
 * the profile's key variable, limits, permission rules. Never throws: a bad file is a message.
 */
export function configuredFace<T extends FaceOptions>(
  options: T,
  env: NodeJS.ProcessEnv,
): ConfiguredFace<T> {
  const cwdProblem = workingDirectoryProblem(resolve(options.cwd));
  if (cwdProblem !== undefined) {
    return { ok: false, message: cwdProblem };
  }
  let settings: EffectiveSettings;
  let warnings: string[];
  let files: ReadonlySet<string>;
  try {
    const config = loadConfig(turnloopHome(env), resolve(options.cwd));
    warnings = config.warnings;
    files = new Set(config.files.map((file) => file.path));
    const given = new Set(options.flagsGiven ?? []);
    settings = effectiveSettings(
      {
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(given.has("max-turns") ? { maxTurns: options.maxTurns } : {}),
        ...(given.has("max-autopilot-continues")
          ? { maxAutopilotContinues: options.maxAutopilotContinues }
          : {}),
        allowTools: options.allowTools,
        denyTools: options.denyTools,
      },
      env,
      config,
    );
  } catch (error) {
    if (error instanceof ConfigError) {
      return { ok: false, message: error.message };
    }
    throw error;
  }
  const fileProblem = fileSettingProblem(settings, files);
  if (fileProblem !== undefined) {
    return { ok: false, message: fileProblem };
  }
  const configured: T = {
    ...options,
    ...(settings.model === undefined ? {} : { model: settings.model.resolved }),
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl.value }),
    maxTurns: settings.maxTurns.value,
    maxAutopilotContinues: settings.maxAutopilotContinues.value,
    allowTools: settings.allow.map((rule) => rule.value),
    denyTools: settings.deny.map((rule) => rule.value),
    contextWindows: Object.fromEntries(
      Object.entries(settings.contextWindows).map(([model, size]) => [model, size.value]),
    ),
  };
  return { ok: true, options: configured, env: environmentFor(settings, env), settings, warnings };
}

/**
 * What is wrong with a model id or permission rule that came from a config file, prefixed with
 * the file's path and the field, so an invalid file is reported as such (exit 64) by every face
 * before anything runs; undefined when nothing is. Flags and variables are checked where they are
 * used, with their own messages.
 */
function fileSettingProblem(
  settings: EffectiveSettings,
  files: ReadonlySet<string>,
): string | undefined {
  const model = settings.model;
  if (model !== undefined && files.has(model.source) && !hasProviderPrefix(model.resolved)) {
    const profiles = Object.keys(settings.providers);
    return (
      `${model.source}: model: "${model.value}" is not <provider>:<model> with provider one of ` +
      `${PROVIDER_NAMES.join(", ")}` +
      (profiles.length === 0
        ? ""
        : `, nor <profile>:<model> with profile one of ${profiles.join(", ")}`)
    );
  }
  const rules = [
    ...settings.allow.map((rule) => ({ field: "permissions.allow", ...rule })),
    ...settings.deny.map((rule) => ({ field: "permissions.deny", ...rule })),
  ];
  for (const rule of rules) {
    if (!files.has(rule.source)) {
      continue;
    }
    try {
      parseRule(rule.value);
    } catch (error) {
      return `${rule.source}: ${rule.field}: ${errorMessage(error)}`;
    }
  }
  return undefined;
}
