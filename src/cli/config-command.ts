import { existsSync } from "node:fs";
import { warningLine, withoutPrefix } from "../events/errors.js";
import { contextWindowOf } from "../llm/context-window.js";
import { catalogueContextWindow } from "../llm/model-catalogue.js";
import { redactDatabaseUrl, redactedConfig, redactedUrl } from "../llm/shown-values.js";
import { describeCommandEnvironment } from "../session/command-environment.js";
import { configPaths } from "../session/config.js";
import { type ProjectTrust, projectTrust, untrustedPhrase } from "../session/config-paths.js";
import { configuredFace } from "../session/face-config.js";
import { ModelHost } from "../session/host-models.js";
import { gatherMcpServers, untrustedServerSource } from "../session/mcp-servers.js";
import { turnloopHome } from "../session/paths.js";
import type { HeldSettings } from "../session/project-holds.js";
import type { RunConfig, SourcedRule } from "../session/run-config.js";
import type { FaceOptions } from "./arguments.js";
import { alignedRows, row, sandboxRows } from "./config-rows.js";

/**
 * Runs `turnloop config`: the settings in force for the cwd and the source of each (flag,
 * variable, file path, default); the API key only as the variable it comes from, with its value
 * redacted; every other value through llm/shown-values.ts `redactedConfig` (header and `env`
 * values, URL passwords and secret query values). `--json` prints the same as one object.
 * @returns 0, or 64 when a config file is invalid.
 */
export async function runConfigCommand(
  options: FaceOptions,
  json: boolean,
  env: NodeJS.ProcessEnv,
  stdout: NodeJS.WritableStream,
): Promise<number> {
  const configured = await configuredFace(options, env);
  if (!configured.ok) {
    process.stderr.write(`turnloop: ${configured.message}\n`);
    return 64;
  }
  const { config: settings, warnings, held } = configured;
  for (const warning of [...warnings, ...noProviderWarning(settings, env)]) {
    process.stderr.write(`${warningLine(warning)}\n`);
  }
  const key = apiKeySource(settings.model?.resolved, env, settings.apiKeyVariable?.value);
  const paths = configPaths(turnloopHome(env), options.cwd);
  const mcp = await mcpServerRows(options, env);
  const sandbox = await sandboxRows(settings, env);
  // Why the project's keys are held, in the words of the warning above (config-paths.ts).
  const trust = held === undefined ? undefined : await projectTrust(turnloopHome(env), options.cwd);
  if (json) {
    const mcpServers = Object.fromEntries(
      mcp.map(({ name, value, source }) => [name, { value: redactedConfig(value), source }]),
    );
    const shown = {
      // At the home folder, which is never a project, there is no project's file (config-paths.ts).
      files: { user: paths.user, project: paths.project === paths.user ? null : paths.project },
      ...jsonFields(settings),
      sandbox: sandbox.json,
      mcpServers,
      apiKey: key ?? null,
      ...(held === undefined
        ? {}
        : {
            held: {
              ...held,
              keys: redactedConfig(shownHeldKeys(held)),
              reason: untrustedPhrase(trust ?? { trusted: false }),
            },
          }),
    };
    stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return 0;
  }
  const lines = [
    ...textRows(settings, paths, key, sandbox.rows, mcp, env),
    ...heldRows(held, trust),
  ];
  stdout.write(`${alignedRows(lines).join("\n")}\n`);
  return 0;
}

/**
 * The model in force when it is a bare name (`gpt-4o`) that nothing gives a provider: -p, the
 * interactive session and `turnloop acp` refuse it (exit 64), the SDK server runs it on the
 * provider an app gives (server/server-model.ts), so it is a warning here, not an error.
 */
function noProviderWarning(settings: RunConfig, env: NodeJS.ProcessEnv): string[] {
  const resolution = new ModelHost(settings, env).resolveModel();
  return resolution.ok || resolution.noProvider !== true
    ? []
    : [
        `${withoutPrefix(resolution.message).replace(/\.$/, "")}; -p, the interactive session and turnloop acp refuse it, the SDK server runs it on the provider an app gives`,
      ];
}

/** The text form: the files, then one row per setting with its source. */
function textRows(
  settings: RunConfig,
  paths: ReturnType<typeof configPaths>,
  key: ReturnType<typeof apiKeySource>,
  sandboxRows: readonly string[],
  mcp: ReadonlyArray<{ name: string; value: unknown; source: string }>,
  env: NodeJS.ProcessEnv,
): string[] {
  return [
    `config files: ${paths.user} (user${existsSync(paths.user) ? "" : ", none"}), ${paths.project === paths.user ? "no project's (the home folder is no project)" : `${paths.project} (project${existsSync(paths.project) ? "" : ", none"})`}`,
    ...modelRows(settings, key),
    // Only a database is shown: the file store's default listing stays as it was.
    ...(settings.store === undefined
      ? []
      : [row("store", redactDatabaseUrl(settings.store.value), settings.store.source)]),
    row("maxTurns", String(settings.maxTurns.value), settings.maxTurns.source),
    row(
      "autopilot.maxContinues",
      String(settings.maxAutopilotContinues.value),
      settings.maxAutopilotContinues.source,
    ),
    row("permissions.mode", settings.permissionMode.value, settings.permissionMode.source),
    ...settings.allow.map((rule) => row("permissions.allow", rule.value, ruleSource(rule))),
    ...settings.deny.map((rule) => row("permissions.deny", rule.value, ruleSource(rule))),
    ...sandboxRows,
    ...environmentRows(settings, env),
    ...Object.entries(settings.providers).map(([name, profile]) =>
      row(`providers.${name}`, JSON.stringify(redactedConfig(profile.value)), profile.source),
    ),
    // A server's entry is shown as JSON; a project's server left waiting for trust, as its note.
    ...mcp.map((server) =>
      row(
        `mcpServers.${server.name}`,
        typeof server.value === "string"
          ? server.value
          : JSON.stringify(redactedConfig(server.value)),
        server.source,
      ),
    ),
    ...Object.entries(settings.contextWindows).map(([model, size]) =>
      row(`contextWindows.${model}`, `${size.value} tokens`, size.source),
    ),
    ...promptRows(settings),
  ];
}

/** The model, the listed models, their endpoints and the API key, each with its source. */
function modelRows(settings: RunConfig, key: ReturnType<typeof apiKeySource>): string[] {
  return [
    row(
      "model",
      settings.model === undefined ? undefined : describeModel(settings.model),
      settings.model?.source,
    ),
    row(
      "models",
      settings.listedModels.length === 0
        ? undefined
        : settings.listedModels.map((id) => id.value).join(", "),
      settings.listedModels[0]?.source,
    ),
    ...baseUrlRows(settings),
    row(
      "apiKey",
      key?.value ??
        (settings.apiKeyVariable === undefined
          ? undefined
          : `(not set: ${settings.apiKeyVariable.value} is empty or unset)`),
      key?.source ?? settings.apiKeyVariable?.source,
    ),
  ];
}

/**
 * The configured model's endpoint (a config profile's model: its profile's `baseUrl`, named so),
 * and, when that is a profile's model, where the models of no profile go (`otherModelsBaseUrl`:
 * `--base-url`, `TURNLOOP_BASE_URL` or a file's `baseUrl`, which never serve a profile).
 */
function baseUrlRows(settings: RunConfig): string[] {
  const { baseUrl, otherModelsBaseUrl, model } = settings;
  const name = model?.value.slice(0, Math.max(0, model.value.indexOf(":"))) ?? "";
  const profile = Object.hasOwn(settings.profileBaseUrls, name) ? name : undefined;
  const ofProfile = name !== "" && Object.hasOwn(settings.providers, name);
  const source =
    profile === undefined ? baseUrl?.source : `providers.${profile}.baseUrl in ${baseUrl?.source}`;
  return [
    row("baseUrl", baseUrl === undefined ? undefined : redactedUrl(baseUrl.value), source),
    ...(ofProfile && otherModelsBaseUrl !== undefined
      ? [
          row(
            "otherModelsBaseUrl",
            redactedUrl(otherModelsBaseUrl.value),
            otherModelsBaseUrl.source,
          ),
        ]
      : []),
  ];
}

/**
 * The context window a new session of the configured model gets, in tokens, and where it comes
 * from, in the order sessions read it (llm/context-window.ts `contextWindowOf`): `--context-window`
 * or `TURNLOOP_CONTEXT_WINDOW`, the config files' `contextWindows` entry of the model's id as
 * written (a profile's, `lab:m`), then of its provider type's id (`openai-compatible:m`), the
 * model catalogue, the default. No row when no model is set.
 */
function windowRow(settings: RunConfig): string[] {
  const { contextWindow } = settings;
  if (contextWindow !== undefined) {
    return [row("contextWindow", `${contextWindow.value} tokens`, contextWindow.source)];
  }
  if (settings.model === undefined) {
    return [];
  }
  const { value: written, resolved: id } = settings.model;
  const entryId = [written, id].find((each) => Object.hasOwn(settings.contextWindows, each));
  const entry = entryId === undefined ? undefined : settings.contextWindows[entryId];
  if (entry !== undefined) {
    return [
      row("contextWindow", `${entry.value} tokens`, `contextWindows.${entryId} in ${entry.source}`),
    ];
  }
  const size = contextWindowOf(id);
  const catalogued = catalogueContextWindow(id) !== undefined;
  return [
    row(
      "contextWindow",
      `${size} tokens`,
      catalogued
        ? `the model catalogue (${id})`
        : /^ollama:/i.test(id)
          ? "default for Ollama models (Ollama's smallest default context)"
          : `default (the catalogue does not know ${id})`,
    ),
  ];
}

/**
 * The session options that no config file sets, each only when a flag or variable gave it
 * (the context window always: {@link windowRow}): the tuning variables (run-config.ts
 * `TUNING_VARIABLES`), `--add-dir`, `--no-instructions`, `--system-prompt-file`,
 * `--append-system-prompt`.
 */
function promptRows(settings: RunConfig): string[] {
  const { instructions, systemPromptFile, appendSystemPrompt } = settings;
  return [
    ...windowRow(settings),
    ...Object.entries(settings.tuning ?? {}).map(([name, { value, source }]) =>
      row(name, String(value), source),
    ),
    ...settings.folders.map((folder) => row("addDir", folder.value, folder.source)),
    ...(instructions.value ? [] : [row("instructions", "off", instructions.source)]),
    ...(systemPromptFile === undefined
      ? []
      : [row("systemPromptFile", systemPromptFile.value, systemPromptFile.source)]),
    ...(appendSystemPrompt === undefined
      ? []
      : [row("appendSystemPrompt", appendSystemPrompt.value, appendSystemPrompt.source)]),
  ];
}

/**
 * One row per key an untrusted project's file may not set (session/project-holds.ts), shown with
 * its value (secrets redacted) as held, why (`trust`: not trusted, or changed since trusted:
 * config-paths.ts `untrustedPhrase`, the warning's words) and where it came from.
 */
function heldRows(held: HeldSettings | undefined, trust: ProjectTrust | undefined): string[] {
  if (held === undefined) {
    return [];
  }
  // The project's MCP servers have rows of their own (mcpServerRows).
  const keys = Object.entries(shownHeldKeys(held)).filter(([name]) => name !== "mcpServers");
  return keys.map(([name, value]) =>
    row(
      name,
      `held: ${JSON.stringify(redactedConfig(value))} (${untrustedPhrase(trust ?? { trusted: false })}; see turnloop mcp trust)`,
      held.path,
    ),
  );
}

/** `held`'s keys as shown: a held `store` with its password redacted, as a store in force is. */
function shownHeldKeys(held: HeldSettings): Record<string, unknown> {
  const { store } = held.keys;
  return typeof store === "string"
    ? { ...held.keys, store: redactDatabaseUrl(store) }
    : { ...held.keys };
}

/**
 * The MCP servers a session here would get, from every file (`mcp.json`, `.mcp.json`, the config
 * files, `--mcp-config`), each with its source; a project's servers waiting for trust say so.
 */
async function mcpServerRows(
  options: FaceOptions,
  env: NodeJS.ProcessEnv,
): Promise<Array<{ name: string; value: unknown; source: string }>> {
  const gathered = await gatherMcpServers({
    home: turnloopHome(env),
    cwd: options.cwd,
    configFiles: options.mcpConfigs,
  });
  const untrusted = gathered.untrustedProject;
  return [
    ...Object.entries(gathered.servers).map(([name, value]) => ({
      name,
      value,
      source: gathered.sources[name] ?? "",
    })),
    ...(untrusted?.names ?? [])
      .filter((name) => gathered.servers[name] === undefined)
      .map((name) => ({
        name,
        value: `(not run: ${untrustedPhrase(untrusted?.trust ?? { trusted: false })}; see turnloop mcp trust)`,
        source: untrusted === undefined ? "" : untrustedServerSource(untrusted, name),
      })),
  ];
}

/**
 * The run config's fields `--json` shows, in its order (unset ones drop out of the JSON, as do
 * `addDirs` and `instructions` at their defaults).
 */
function jsonFields(settings: RunConfig) {
  const { baseUrl, otherModelsBaseUrl } = settings;
  return {
    model: settings.model,
    listedModels: settings.listedModels.length === 0 ? undefined : settings.listedModels,
    baseUrl: baseUrl === undefined ? undefined : { ...baseUrl, value: redactedUrl(baseUrl.value) },
    otherModelsBaseUrl:
      otherModelsBaseUrl === baseUrl || otherModelsBaseUrl === undefined
        ? undefined
        : { ...otherModelsBaseUrl, value: redactedUrl(otherModelsBaseUrl.value) },
    apiKeyVariable: settings.apiKeyVariable,
    maxTurns: settings.maxTurns,
    maxAutopilotContinues: settings.maxAutopilotContinues,
    keptVariables: settings.keptVariables.length === 0 ? undefined : settings.keptVariables,
    permissionMode: settings.permissionMode,
    allow: settings.allow,
    deny: settings.deny,
    providers: Object.fromEntries(
      Object.entries(settings.providers).map(([name, profile]) => [
        name,
        { ...profile, value: redactedConfig(profile.value) },
      ]),
    ),
    contextWindows: settings.contextWindows,
    contextWindow: settings.contextWindow,
    tuning: settings.tuning,
    addDirs: settings.folders.length === 0 ? undefined : settings.folders,
    instructions: settings.instructions.value ? undefined : settings.instructions,
    systemPromptFile: settings.systemPromptFile,
    appendSystemPrompt: settings.appendSystemPrompt,
    store:
      settings.store === undefined
        ? undefined
        : { ...settings.store, value: redactDatabaseUrl(settings.store.value) },
  };
}

/**
 * What commands' environment lacks (session/command-environment.ts `describeCommandEnvironment`:
 * provider keys, the database URL, secret-looking names: events/secrets.ts `isSecretName`), as one
 * row, then a row per variable `shellEnvironment.keep` keeps.
 */
function environmentRows(settings: RunConfig, env: NodeJS.ProcessEnv): string[] {
  const profileKeys = Object.values(settings.providers).flatMap(({ value }) =>
    value.apiKeyEnv === undefined ? [] : [value.apiKeyEnv],
  );
  const sentence = describeCommandEnvironment(env, profileKeys, settings.keptVariables);
  return [
    row("commands' environment", sentence, undefined),
    ...settings.keptVariables.map((name) => row("shellEnvironment.keep", name.value, name.source)),
  ];
}

function describeModel(model: { value: string; resolved: string }): string {
  return model.value === model.resolved ? model.value : `${model.value} (= ${model.resolved})`;
}

/** A rule's source, and the folder its relative path is read against (run-config.ts `SourcedRule`). */
function ruleSource(rule: SourcedRule): string {
  return rule.anchor === undefined
    ? rule.source
    : `${rule.source}, paths relative to ${rule.anchor}`;
}

/**
 * Which variable the key comes from, its value shown as its first 4 characters: `TURNLOOP_API_KEY`,
 * else a profile's `apiKeyEnv` variable when the model's profile names one (no other is read
 * then: session/host-models.ts), else the provider's own variable.
 */
function apiKeySource(
  model: string | undefined,
  env: NodeJS.ProcessEnv,
  profileVariable: string | undefined,
): { value: string; source: string } | undefined {
  const provider = model?.slice(0, Math.max(0, model.indexOf(":")));
  const vendor = provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const candidates = ["TURNLOOP_API_KEY", profileVariable ?? vendor];
  for (const variable of candidates) {
    const value = env[variable];
    if (value !== undefined && value !== "") {
      return { value: `${value.slice(0, 4)}…[redacted]`, source: variable };
    }
  }
  return undefined;
}
