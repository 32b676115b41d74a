import { z } from "zod";
import { describeIssue } from "../events/setting-words.js";
import { PERMISSION_MODES } from "../permissions/permission-mode.js";
import { jsonSyntaxMessage, readConfigFileText } from "../tools/config-file-text.js";
import { mcpServerSchema, parseServerEntry } from "../tools/mcp/config.js";
import { SANDBOX_POLICIES } from "../tools/sandbox/policy.js";
import { ConfigError, configPaths, projectFolder } from "./config-paths.js";
import { type GuardingSection, unknownKeys } from "./config-problems.js";

export { ConfigError, configPaths };

/**
 * The config files: `$TURNLOOP_HOME/config.json` (the user's, default `~/.turnloop/config.json`)
 * and `<project>/.turnloop/config.json` (the cwd's). Precedence: flags > environment > project >
 * user. Validated with zod at this edge: a bad file is reported with its path and the field, JSON
 * syntax errors with line and column. An unknown key names the closest known key at its level
 * (`"permisions"`: did you mean "permissions"?) and is a warning, except in or instead of the
 * `permissions` and `sandbox` sections: going on without a deny list or the confinement the user
 * meant to write is unsafe, so that is an error unless the run asked to ignore it
 * (`--ignore-config-errors`; issue 24 item 6, and a fresh user's trial in round 3 session 19).
 * What an untrusted project's file may not set is taken out after reading (project-holds.ts).
 */

/** A named provider: `--model <name>:<model>` then means `<type>:<model>` at `baseUrl`. */
const providerProfile = (object: ObjectBuilder) =>
  object({
    type: z.enum(["openai", "openai-chat", "anthropic", "ollama", "openai-compatible"]),
    baseUrl: httpUrl().optional(),
    /** Name of the environment variable holding the key (keys stay out of config files). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name")
      .optional(),
  });

type ObjectBuilder = typeof z.strictObject;

/** A base URL: `http://` or `https://` only, as `--base-url` takes (an `ftp://` one is never used). */
const httpUrl = () => z.url({ protocol: /^https?$/ });

const configShape = (object: ObjectBuilder) =>
  object({
    $schema: z.string().optional(),
    /** `<provider>:<model>`, or `<profile>:<model>`. */
    model: z.string().min(1).optional(),
    baseUrl: httpUrl().optional(),
    providers: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), providerProfile(object))
      .optional(),
    permissions: object({
      allow: z.array(z.string()).optional(),
      deny: z.array(z.string()).optional(),
      mode: z.enum(PERMISSION_MODES).optional(),
    }).optional(),
    /** How commands are confined (README, "Sandbox"). */
    sandbox: object({
      policy: z.enum(SANDBOX_POLICIES).optional(),
      network: z.boolean().optional(),
      /** Whether sandboxed commands may make Unix sockets (default: refused). */
      allowUnixSockets: z.boolean().optional(),
      /** The size cap of the sandbox's /tmp and /dev/shm, each, in MiB. */
      tmpfsSizeMiB: z.int().min(1).optional(),
      /** Places hidden besides the default list: absolute, or relative to the home folder. */
      hidden: z.array(z.string().min(1)).optional(),
    }).optional(),
    /** Commands' environment (README, "Commands the model runs"). */
    shellEnvironment: object({
      /** Variables kept although their names look secret (command-environment.ts). */
      keep: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name")).optional(),
    }).optional(),
    /** Model requests per prompt. */
    maxTurns: z.int().min(1).optional(),
    autopilot: object({ maxContinues: z.int().min(0).optional() }).optional(),
    /** Checked by the MCP module's schema (the shapes of Claude Code, Copilot, VS Code, ACP). */
    mcpServers: z.record(z.string(), mcpServerSchema()).optional(),
    /**
     * Context window sizes in tokens, by model id; at least 1,000, as `--context-window` and
     * `TURNLOOP_CONTEXT_WINDOW` (cli/numeric-settings.ts `NUMERIC_FLAGS`: no model has less).
     */
    contextWindows: z
      .record(
        z.string(),
        z.int().min(1_000, "a whole number of tokens ≥ 1000, as --context-window takes"),
      )
      .optional(),
    /** Where sessions are kept: a `postgres://` URL (issue 22); default the file store. */
    store: z
      .string()
      .regex(/^postgres(ql)?:\/\//i, "a postgres:// or postgresql:// URL")
      .optional(),
  });

/**
 * The strict schema (unknown keys are issues) and the lenient one (they are dropped), built on
 * the first config file read: a run without config files never builds them (issue 26).
 */
interface ConfigSchemas {
  strict: ReturnType<typeof configShape>;
  lenient: ReturnType<typeof configShape>;
}

let schemas: ConfigSchemas | undefined;

function configSchemas(): ConfigSchemas {
  schemas ??= {
    strict: configShape(z.strictObject),
    lenient: configShape(z.object as ObjectBuilder),
  };
  return schemas;
}

/**
 * The strict schema of a config file, built on first use: for a check that walks every setting
 * (test/cli/config-every-setting.test.ts: each has a row in `turnloop config`).
 */
export function configFileSchema(): ConfigSchemas["strict"] {
  return configSchemas().strict;
}

/** One config file's settings. */
export type ConfigFile = z.infer<ReturnType<typeof configShape>>;
export type ProviderProfile = NonNullable<ConfigFile["providers"]>[string];
export type McpServerConfig = NonNullable<ConfigFile["mcpServers"]>[string];

/** The user's and the project's files, as read. */
export interface LoadedConfig {
  /** Each file that exists, user first, with its settings. */
  files: Array<{ path: string; scope: "user" | "project"; settings: ConfigFile }>;
  /** Unknown keys, one line each with the file's path. */
  warnings: string[];
}

/** How strictly {@link loadConfig} reads. */
export interface ConfigReading {
  /**
   * Unknown keys in or instead of `permissions` and `sandbox` are warnings, not errors
   * (`--ignore-config-errors`).
   */
  ignoreErrors?: boolean;
  /** Only the user's file, not the project's (face-config.ts `configuredFace` without a project). */
  userOnly?: boolean;
  /**
   * The cwd's project (config-paths.ts `projectFolder`) when the caller found it already, for the
   * same moment's reading (mcp-servers.ts `gatherMcpServers`); absent: looked for here.
   */
  project?: string;
}

/** What an unknown key of each guarding section (config-problems.ts) would lose, in words. */
const GUARDED: Record<GuardingSection, { lost: string; risk: string; ignored: string }> = {
  permissions: { lost: "permission rules", risk: "", ignored: "its rules do not apply" },
  sandbox: {
    lost: "sandbox settings",
    risk: ", which would let commands run less confined than you wrote",
    ignored: "its setting does not apply",
  },
};

/**
 * Reads both files (a missing file is no error).
 * @throws ConfigError naming the path and field of invalid JSON (line and column) or an invalid
 * value, or an unknown key in or instead of `permissions` or `sandbox` unless
 * `reading.ignoreErrors`.
 */
export function loadConfig(home: string, cwd: string, reading: ConfigReading = {}): LoadedConfig {
  const folder = reading.project ?? projectFolder(cwd);
  const paths = configPaths(home, cwd, folder);
  const loaded: LoadedConfig = { files: [], warnings: [] };
  const places: Array<["user" | "project", string]> = [["user", paths.user]];
  // At the home folder the project's file is the user's (config-paths.ts): read once.
  if (reading.userOnly !== true && paths.project !== paths.user) {
    places.push(["project", paths.project]);
  }
  for (const [scope, path] of places) {
    const project = scope === "project" ? { folder, turnloopHome: home } : undefined;
    const settings = readConfigFile(path, loaded.warnings, reading, project);
    if (settings !== undefined) {
      loaded.files.push({ path, scope, settings });
    }
  }
  return loaded;
}

/**
 * The settings of the config file at `path` (undefined: no file), read by the one reader of
 * project files (tools/project-file.ts): `project`, for a project's file, the folder it must lie in.
 */
function readConfigFile(
  path: string,
  warnings: string[],
  reading: ConfigReading,
  project: { folder: string; turnloopHome: string } | undefined,
): ConfigFile | undefined {
  const file = readConfigFileText(path, project?.folder, project?.turnloopHome);
  if (file === undefined) {
    return undefined;
  }
  if (file.problem !== undefined) {
    throw new ConfigError(file.problem);
  }
  const text = file.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${jsonSyntaxMessage(text, error)}`);
  }
  const strict = configSchemas().strict.safeParse(json);
  if (strict.success) {
    return strict.data;
  }
  const unknown = strict.error.issues.filter((issue) => issue.code === "unrecognized_keys");
  const invalid = strict.error.issues.filter((issue) => issue.code !== "unrecognized_keys");
  const first = invalid[0];
  if (first !== undefined) {
    // An MCP server's problem names its own field (`mcpServers.s: env.A must be a string …`).
    const at = first.path[0] === "mcpServers" ? first.path.slice(0, 2) : first.path;
    const field = at.length === 0 ? "the file" : at.map(String).join(".");
    throw new ConfigError(`${path}: ${field}: ${invalidValue(json, first)}`);
  }
  for (const problem of unknownKeys(configSchemas().strict, unknown)) {
    const hint = problem.suggestion === undefined ? "" : ` (did you mean "${problem.suggestion}"?)`;
    const named = `${path}: unknown key "${problem.key}"${hint}`;
    const what = problem.guarding === undefined ? undefined : GUARDED[problem.guarding];
    if (what === undefined) {
      warnings.push(`${named} ignored`);
    } else if (reading.ignoreErrors === true) {
      warnings.push(`${named} ignored with --ignore-config-errors: ${what.ignored}`);
    } else {
      throw new ConfigError(
        `${named}: turnloop stops rather than ignore the ${what.lost} there${what.risk}; fix the file, or run with --ignore-config-errors to go on without them`,
      );
    }
  }
  return configSchemas().lenient.parse(json);
}

/**
 * The sentence for one invalid value: an MCP server entry in the MCP module's own words (which
 * `--mcp-config` shows too), anything else by {@link describeIssue}.
 */
function invalidValue(json: unknown, issue: z.core.$ZodIssue): string {
  const [section, name] = issue.path;
  if (section === "mcpServers" && typeof name === "string") {
    const servers = (json as { mcpServers?: Record<string, unknown> }).mcpServers ?? {};
    const problem = parseServerEntry(name, servers[name]);
    if (typeof problem === "string") {
      // The field already names the server: `mcpServers.a: needs "command" (stdio) or …`.
      return problem.replace(`server ${JSON.stringify(name)}: `, "");
    }
  }
  return describeIssue(json, issue);
}
