import { join, resolve } from "node:path";
import { errorMessage } from "../events/errors.js";
import { urlPortProblem } from "../events/url-port.js";
import {
  endpointVariable,
  hasProviderPrefix,
  meantModelHint,
  PROVIDER_NAMES,
  type ProviderName,
  vendorEndpoint,
} from "../llm/api-keys.js";
import { parseConfiguredRule } from "../permissions/permission-mode.js";
import type { ConfigReading, LoadedConfig } from "./config.js";
import {
  ConfigError,
  configFilesPresent,
  projectFolder as projectOf,
  projectTrust,
  unreadProjectFiles,
} from "./config-paths.js";
import type { FaceOptions } from "./face-options.js";
import { turnloopHome } from "./paths.js";
import type { HeldSettings } from "./project-holds.js";
import { type RunConfig, resolvedModel, resolveRunConfig, type Sourced } from "./run-config.js";

// Not an ES module import, whose facade loads Node's file streams before the interactive face's
// input box (issue 26; scripts/pi-tui-builtins-direct.mjs has the figures).
const { existsSync, statSync } = process.getBuiltinModule("node:fs");

/**
 * What every face does with its {@link FaceOptions} before opening sessions: check the cwd and
 * resolve the run config (flags, environment, config files).
 */

/**
 * Why `cwd` cannot be the working directory (missing, or not a folder; `flag` names it), or
 * undefined when it can. Checked before anything runs, so no tool creates the tree of a mistyped
 * `--cwd`, and no session runs without the `--add-dir` folder the user meant to give it.
 */
export function workingDirectoryProblem(cwd: string, flag = "--cwd"): string | undefined {
  try {
    return statSync(cwd).isDirectory() ? undefined : `${flag} ${cwd} is not a directory`;
  } catch {
    return `${flag} ${cwd} does not exist`;
  }
}

/** The first of `options`' folders (`--cwd`, then each `--add-dir`, relative to it) that is no folder. */
function folderProblem(options: FaceOptions): string | undefined {
  const cwd = resolve(options.cwd);
  const added = options.addDirs.map((folder) => [resolve(cwd, folder), "--add-dir"] as const);
  for (const [folder, flag] of [[cwd, "--cwd"] as const, ...added]) {
    const problem = workingDirectoryProblem(folder, flag);
    if (problem !== undefined) {
      return problem;
    }
  }
  return undefined;
}

/** A face's run config (its flags, the environment and the config files), or why there is none. */
export type ConfiguredFace =
  | {
      ok: true;
      config: RunConfig;
      env: NodeJS.ProcessEnv;
      warnings: string[];
      /** The keys of an untrusted project's file that do not apply (project-holds.ts). */
      held?: HeldSettings;
    }
  | { ok: false; message: string };

/**
 * Resolves `options` with `$TURNLOOP_HOME/config.json` and the `.turnloop/config.json` of
 * `projectFolder`'s project (config-paths.ts `projectFolder`: the nearest folder up holding `.git`;
 * trusted or not as that project is) under the flags and the environment (flags > env > project >
 * user) into the run config, and the environment to read models from (`env` itself; the profile's key
 * serves the configured model only: host-models.ts). `projectFolder` is the cwd, or the folder of a session that works in
 * another (folder-run.ts); `null`: no project files (`.turnloop/config.json`, `.mcp.json`) are
 * read, and the config says so (`projectSkipped`). The warnings name the project files of the
 * folders between it and its project's root, not read. Never rejects: a missing cwd or a bad
 * file is a message.
 */
export async function configuredFace(
  options: FaceOptions,
  env: NodeJS.ProcessEnv,
  projectFolder: string | null = resolve(options.cwd),
): Promise<ConfiguredFace> {
  const cwdProblem = folderProblem(options);
  if (cwdProblem !== undefined) {
    return { ok: false, message: cwdProblem };
  }
  const read = await readFaceConfig(options, env, projectFolder);
  if (typeof read === "string") {
    return { ok: false, message: read };
  }
  let loaded = read;
  const holding = await heldUntrusted(turnloopHome(env), projectFolder ?? "", loaded);
  const files = new Set(loaded.files.map((file) => file.path));
  const fileModels = loaded.files.flatMap((file) =>
    file.settings.model === undefined ? [] : [{ value: file.settings.model, source: file.path }],
  );
  // Held keys are checked too: a bad file is reported as such, trusted or not.
  const folder = projectFolder ?? resolve(options.cwd);
  const whole =
    holding.held === undefined ? undefined : resolveRunConfig(options, env, loaded, folder);
  loaded = holding.loaded;
  const config = resolveRunConfig(options, env, loaded, folder);
  const fileProblem =
    fileSettingProblem(whole ?? config, files, fileModels) ??
    runSettingProblem(whole ?? config, files) ??
    (options.ignoreConfigErrors === true
      ? undefined
      : await mcpFileProblem(turnloopHome(env), projectFolder, options));
  if (fileProblem !== undefined) {
    return { ok: false, message: await withCatalogueHint(fileProblem) };
  }
  const held = holding.held;
  const unread = projectFolder === null ? [] : unreadProjectFiles(projectFolder);
  return {
    ok: true,
    // Frozen as resolveRunConfig's; `flags` stays the face's own object.
    config: Object.freeze({
      ...config,
      flags: options,
      ...(projectFolder === null ? { projectSkipped: true } : {}),
      ...(holding.warning === undefined ? {} : { heldWarning: holding.warning }),
      ...(unread.length === 0 ? {} : { unreadWarnings: unread }),
    }),
    env,
    warnings: [
      ...unread,
      ...loaded.warnings,
      ...(holding.warning === undefined ? [] : [holding.warning]),
    ],
    ...(held === undefined ? {} : { held }),
  };
}

/** `problem` and, for a config file's bare model name, the ids the catalogue lists it under
 * (model-catalogue.ts `catalogueModelHint`, loaded only then). */
async function withCatalogueHint(problem: string): Promise<string> {
  const bare = /: model: "([^":]+)" is not <provider>:<model>/.exec(problem)?.[1];
  if (bare === undefined) {
    return problem;
  }
  const { catalogueModelHint } = await import("../llm/model-catalogue.js");
  return `${problem}${catalogueModelHint(bare)}`;
}

/** The config files as `configuredFace` reads them, or a bad file's message. */
async function readFaceConfig(
  options: FaceOptions,
  env: NodeJS.ProcessEnv,
  projectFolder: string | null,
): Promise<LoadedConfig | string> {
  try {
    return await loadedConfig(turnloopHome(env), projectFolder ?? resolve(options.cwd), {
      ignoreErrors: options.ignoreConfigErrors === true,
      userOnly: projectFolder === null,
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.message;
    }
    throw error;
  }
}

/**
 * `loaded` without the keys an untrusted project may not set (project-holds.ts), and those keys;
 * the trust record is read, and the holding rules load, only when there is a project file.
 */
async function heldUntrusted(
  home: string,
  cwd: string,
  loaded: LoadedConfig,
): Promise<{ loaded: LoadedConfig; held?: HeldSettings; warning?: string }> {
  if (!loaded.files.some((file) => file.scope === "project")) {
    return { loaded };
  }
  const { holdUntrustedSettings, heldSettingsWarning } = await import("./project-holds.js");
  const trust = await projectTrust(home, cwd);
  if (trust.trusted) {
    return { loaded };
  }
  const holding = holdUntrustedSettings(loaded);
  const warning = holding.held === undefined ? undefined : heldSettingsWarning(holding.held, trust);
  return warning === undefined ? holding : { ...holding, warning };
}

/**
 * The config files as `loadConfig` reads them; their schema's module (and zod with it) is
 * imported only when a file is there (issue 26: a run without config files starts without zod).
 */
async function loadedConfig(
  home: string,
  cwd: string,
  reading: ConfigReading,
): Promise<LoadedConfig> {
  if (!configFilesPresent(home, cwd)) {
    return { files: [], warnings: [] };
  }
  const { loadConfig } = await import("./config.js");
  return loadConfig(home, cwd, reading);
}

/**
 * What is wrong with a model id or permission rule that came from a config file, prefixed with
 * the file's path and the field, so an invalid file is reported as such (exit 64) by every face
 * before anything runs; undefined when nothing is. Every file's model is checked, the one a flag
 * or variable overrides too; a model or base URL from a flag or variable: runSettingProblem.
 */
function fileSettingProblem(
  settings: RunConfig,
  files: ReadonlySet<string>,
  fileModels: ReadonlyArray<Sourced<string>>,
): string | undefined {
  // Every file's model, not only the one in force: a variable or flag over a bad file leaves
  // the file bad, and the run without them would stop on it.
  const model = fileModels.find(
    (each) => !knownModel(resolvedModel(each.value, settings.providers)),
  );
  if (model !== undefined) {
    return `${model.source}: model: ${notAModel(model.value, settings)}`;
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
      parseConfiguredRule(rule.value);
    } catch (error) {
      return `${rule.source}: ${rule.field}: ${errorMessage(error)}`;
    }
  }
  return undefined;
}

/**
 * What is wrong with the model in force where it came from a flag or a variable (`--model`,
 * `TURNLOOP_MODEL`): a provider turnloop does not know, named with its source; else what is wrong
 * with the base URL ({@link baseUrlProblem}). Known before any request, so a run-config error
 * (exit 64; `turnloop acp` fails its session requests with it) rather than a failure after a
 * session was stored.
 */
function runSettingProblem(settings: RunConfig, files: ReadonlySet<string>): string | undefined {
  const model = settings.model;
  // A bare name (`--model gpt-4.1`) names no provider rather than a wrong one: the server takes it
  // as the model of the providers apps give (server/server-model.ts), -p reports it itself.
  if (
    model?.resolved.includes(":") === true &&
    !files.has(model.source) &&
    !knownModel(model.resolved)
  ) {
    return `${model.source} ${notAModel(model.value, settings)}`;
  }
  // Each listed choice as TURNLOOP_MODEL is checked (trial 42 F14: an unknown provider there
  // surfaced only when someone picked it in an editor).
  const listed = settings.listedModels.find(
    ({ value }) => value.includes(":") && !knownModel(resolvedModel(value, settings.providers)),
  );
  if (listed !== undefined) {
    return `${listed.source} entry ${notAModel(listed.value, settings)}`;
  }
  return (
    profileBaseUrlProblem(settings) ??
    baseUrlProblem(settings, files) ??
    baseUrlProblem({ ...settings, baseUrl: settings.otherModelsBaseUrl }, files)
  );
}

/**
 * `--base-url` given with a configured model of a config profile, which never runs there
 * (run-config.ts `modelSettings`: `--base-url` serves models of no profile, so that a profile's
 * key never goes to another URL): said rather than ignored, since both were asked for.
 * `TURNLOOP_BASE_URL`, set for a whole environment, is not an error (`turnloop config` shows
 * where each model goes).
 */
function profileBaseUrlProblem(settings: RunConfig): string | undefined {
  const { model, otherModelsBaseUrl: given } = settings;
  const name = model?.value.slice(0, Math.max(0, model.value.indexOf(":"))) ?? "";
  const profile = Object.hasOwn(settings.providers, name) ? settings.providers[name] : undefined;
  if (model === undefined || profile === undefined || given?.source !== "--base-url") {
    return undefined;
  }
  const own = settings.profileBaseUrls[name];
  const where =
    own === undefined
      ? `its type's own endpoint`
      : `providers.${name}.baseUrl in ${own.source}, ${own.value}`;
  return `--base-url does not apply to ${model.value}, a model of the config profile "${name}": it runs at ${where}, with the profile's key (--base-url serves models of no config profile); to send it to ${given.value}, use --model ${model.resolved}`;
}

/**
 * A base URL that is not an http(s) URL, named with where it came from: `--base-url`,
 * `TURNLOOP_BASE_URL`, a file's `baseUrl` or the model's profile's `providers.<name>.baseUrl`
 * (zod's `z.url()` takes any scheme), or, with none of them, the vendor variable the model's
 * provider reads (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `OLLAMA_HOST`: llm/api-keys.ts).
 */
function baseUrlProblem(settings: RunConfig, files: ReadonlySet<string>): string | undefined {
  const vendor =
    settings.baseUrl === undefined
      ? vendorBaseUrl(settings.model?.resolved, settings.endpoints)
      : undefined;
  const baseUrl = settings.baseUrl ?? vendor;
  if (baseUrl === undefined || httpUrl(vendor?.url ?? baseUrl.value)) {
    return undefined;
  }
  const fault = urlPortProblem(vendor?.url ?? baseUrl.value) ?? "is not an http:// or https:// URL";
  const problem = `"${baseUrl.value}" ${fault} (e.g. http://127.0.0.1:8000/v1)`;
  if (!files.has(baseUrl.source)) {
    return `${baseUrl.source} ${problem}`;
  }
  const model = settings.model?.value ?? "";
  const prefix = model.slice(0, Math.max(0, model.indexOf(":")));
  const profile = Object.hasOwn(settings.providers, prefix)
    ? settings.providers[prefix]
    : undefined;
  const fromProfile = profile?.source === baseUrl.source && profile.value.baseUrl === baseUrl.value;
  return `${baseUrl.source}: ${fromProfile ? `providers.${prefix}.baseUrl` : "baseUrl"}: ${problem}`;
}

/**
 * The endpoint variable a resolved model's provider reads (llm/api-keys.ts `endpointVariable`), if
 * set, as written; checked as the URL its vendor reads it as (`vendorEndpoint`: `OLLAMA_HOST`'s
 * `host:port` is `http://host:port/v1`).
 */
function vendorBaseUrl(
  resolved: string | undefined,
  endpoints: RunConfig["endpoints"],
): (Sourced<string> & { url: string }) | undefined {
  const provider = resolved?.slice(0, Math.max(0, resolved.indexOf(":"))) ?? "";
  const name = hasProviderPrefix(resolved ?? "")
    ? endpointVariable(provider as ProviderName)
    : undefined;
  const value = name === undefined ? undefined : endpoints[name];
  return name === undefined || value === undefined
    ? undefined
    : { value, source: name, url: vendorEndpoint(name, value) };
}

/** Whether a resolved model id names a provider turnloop has and a model (`anthropic:x`). */
function knownModel(resolved: string): boolean {
  return hasProviderPrefix(resolved) && !resolved.endsWith(":");
}

/** Why `model` is no model id: the providers, and the config's profiles if there are any. */
function notAModel(model: string, settings: RunConfig): string {
  const profiles = Object.keys(settings.providers);
  return (
    `"${model}" is not <provider>:<model> with provider one of ${PROVIDER_NAMES.join(", ")}` +
    (profiles.length === 0
      ? ""
      : `, nor <profile>:<model> with profile one of ${profiles.join(", ")}`) +
    meantModelHint(model, profiles)
  );
}

/** Whether `value` parses as a URL whose scheme is http or https (WHATWG URL, as fetch reads it). */
function httpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * The first problem of the MCP server files (`$TURNLOOP_HOME/mcp.json`, `projectFolder`'s
 * `.mcp.json` and each `--mcp-config FILE`, resolved against `cwd`): a named file that is missing,
 * invalid JSON (line and column), or an entry that is not a server (its name), prefixed with the
 * file's path; undefined when there is none. A bad file is bad config, as an invalid config.json
 * is (exit 64 before any model request); the project's file is checked before it is trusted, as
 * its `.turnloop/config.json` is. With `--ignore-config-errors` the caller skips this, and the
 * problems are reported as the servers open (mcp-servers.ts) while the others start. The MCP
 * config module (and zod) loads only when there is a file to check.
 */
async function mcpFileProblem(
  home: string,
  projectFolder: string | null,
  { cwd, mcpConfigs: named }: Pick<FaceOptions, "cwd" | "mcpConfigs">,
): Promise<string | undefined> {
  const project = projectFolder === null ? [] : [join(projectOf(projectFolder), ".mcp.json")];
  const usual = [join(home, "mcp.json"), ...project].filter((path) => existsSync(path));
  if (usual.length === 0 && named.length === 0) {
    return undefined;
  }
  const { readServersFile } = await import("../tools/mcp/config.js");
  const read = await Promise.all([
    ...usual.map((path) => readServersFile(path)),
    ...named.map((file) => readServersFile(resolve(cwd, file), { named: true })),
  ]);
  return read.flatMap((file) => file.problems)[0];
}
