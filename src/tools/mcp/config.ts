/**
 * MCP server configurations: the `{"mcpServers": {name: server}}` format of Claude Code's
 * `.mcp.json` (also read from `~/.turnloop/mcp.json` and `--mcp-config FILE`), the Copilot SDK's
 * `SessionConfig.mcpServers` (`type: "local"`, `workingDirectory`, `timeout`, `tools`), and ACP's
 * `McpServer` list (`env` and `headers` as `[{name, value}]`). Each entry is checked alone, so one
 * bad entry is reported and the others still run.
 */

import { basename, dirname } from "node:path";
import { z } from "zod";
import { closestName, describeIssue, kindOf } from "../../events/setting-words.js";
import { urlPortProblem } from "../../events/url-port.js";
import { redactedUrl, urlPasswordProblem } from "../../llm/shown-values.js";
import { jsonSyntaxMessage, readConfigFileText, readNamedFileText } from "../config-file-text.js";

/** The project's own MCP servers file, in its project folder (Claude Code's name). */
const PROJECT_SERVERS_FILE = ".mcp.json";

/** One MCP server, normalised. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

interface McpServerCommon {
  /** Tools to offer (`["*"]` or absent: all; `[]`: none), by the server's own tool names. */
  tools?: string[];
  /** Time a tool call may take (ms); default {@link DEFAULT_TOOL_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** A server started as a child process speaking MCP on its stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  type: "stdio";
  command: string;
  args: string[];
  /** Added to the inherited environment. */
  env: Record<string, string>;
  /** Working directory; default the session's cwd. */
  cwd?: string;
}

/** A server reached over Streamable HTTP (`http`) or the older HTTP+SSE transport (`sse`). */
export interface McpRemoteServerConfig extends McpServerCommon {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

/** Servers by name. */
export type McpServerConfigs = Record<string, McpServerConfig>;

/** Tool calls wait this long for an answer by default (ms); progress notifications extend it. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60_000;

/**
 * The entry schemas, built on first use: a run with no MCP server configured never builds them
 * (issue 26: zod schemas cost start-up time when built at import).
 */
function buildSchemas() {
  const stringRecord = z.record(z.string(), z.string());
  /** ACP's `[{name, value}]` lists. */
  const namedValues = z.array(z.looseObject({ name: z.string(), value: z.string() }));
  const keyValues = z
    .union([stringRecord, namedValues])
    .transform((value) =>
      Array.isArray(value)
        ? Object.fromEntries(value.map((entry) => [entry.name, entry.value]))
        : value,
    );
  const common = {
    tools: z.array(z.string()).optional(),
    timeout: z.number().int().positive().optional(),
  };
  const stdio = z.looseObject({
    type: z.enum(["stdio", "local"]).optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: keyValues.optional(),
    cwd: z.string().min(1).optional(),
    workingDirectory: z.string().min(1).optional(),
    ...common,
  });
  const remote = z.looseObject({
    type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
    url: z.url({ protocol: /^https?$/ }),
    headers: keyValues.optional(),
    ...common,
  });
  return { stdio, remote, server: z.union([stdio, remote]) };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;

function entrySchemas(): ReturnType<typeof buildSchemas> {
  schemas ??= buildSchemas();
  return schemas;
}

/**
 * One entry of an `mcpServers` object as written in a file (any of the shapes above; extra keys
 * kept). The config module validates config files' `mcpServers` with it.
 */
export function mcpServerSchema(): ReturnType<typeof buildSchemas>["server"] {
  return entrySchemas().server;
}

/** Server names: 1-64 printable characters (tool names replace anything outside `[A-Za-z0-9_-]`). */
function validServerName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= 64 &&
    ![...name].some((character) => {
      const code = character.charCodeAt(0);
      return code < 0x20 || code === 0x7f;
    })
  );
}

/** Parsed servers and what was wrong with the rest (one line per problem, naming `where`). */
export interface ParsedServers {
  servers: McpServerConfigs;
  problems: string[];
  /** What was ignored without stopping anything (a file's unknown top-level keys), one line each. */
  warnings?: string[];
}

/**
 * Other tools' names for `mcpServers` (lower case): VS Code's `.vscode/mcp.json` says `servers`,
 * so a file copied from there is said to be in the wrong shape rather than read as empty.
 */
const OTHER_NAMES_OF_SERVERS = new Set([
  "servers",
  "mcpservers",
  "mcp_servers",
  "mcp-servers",
  "mcp",
]);

/**
 * The warnings about `file`'s top-level keys other than `mcpServers` (and `$schema`): each is
 * ignored, as an unknown key of a config file is (session/config.ts), with `did you mean
 * "mcpServers"?` for another tool's name of it.
 */
function unknownTopLevelKeys(file: Record<string, unknown>, path: string): string[] {
  return Object.keys(file)
    .filter((key) => key !== "mcpServers" && key !== "$schema")
    .map((key) => {
      const hint = OTHER_NAMES_OF_SERVERS.has(key.toLowerCase())
        ? ' (did you mean "mcpServers"?)'
        : "";
      return `${path}: unknown key ${JSON.stringify(key)}${hint} ignored`;
    });
}

/** The keys of a stdio server entry (Claude Code's, the Copilot SDK's `local` and `workingDirectory`). */
const STDIO_KEYS = [
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "workingDirectory",
  "tools",
  "timeout",
];

/** The keys of an `http` or `sse` server entry. */
const REMOTE_KEYS = ["type", "url", "headers", "tools", "timeout"];

/**
 * Reads one entry of an `mcpServers` object. An entry that is neither kind says so, with its
 * misspelt keys (`"comand"`: did you mean "command"?); an invalid value is said as the config
 * files' are (`args must be a list ([…]), not the string "-y"`, events/setting-words.ts).
 * @returns the server, or a readable problem.
 */
export function parseServerEntry(name: string, value: unknown): McpServerConfig | string {
  if (!validServerName(name)) {
    return `server name ${JSON.stringify(name)} must be 1-64 printable characters`;
  }
  const record = typeof value === "object" && value !== null ? value : {};
  if ("command" in record) {
    const parsed = entrySchemas().stdio.safeParse(value);
    if (!parsed.success) {
      return `server "${name}": ${entryProblem(value, parsed.error)}`;
    }
    const { command, args, env, cwd, workingDirectory, tools, timeout } = parsed.data;
    const directory = cwd ?? workingDirectory;
    return {
      type: "stdio",
      command,
      args: args ?? [],
      env: env ?? {},
      ...(directory === undefined ? {} : { cwd: directory }),
      ...options(tools, timeout),
    };
  }
  const given = (record as { url?: unknown }).url;
  // The password first: one holding `#`, `/` or `?` most often makes the URL unreadable
  // (`http://u:ab#cd@h` reads as host `u`, port `ab`), and the hint says how to write it.
  const passwordProblem =
    typeof given === "string" && /^https?:\/\//i.test(given)
      ? urlPasswordProblem(given)
      : undefined;
  if (passwordProblem !== undefined) {
    return `server "${name}": "url" ${redactedUrl(given as string)}: ${passwordProblem}`;
  }
  if (typeof given === "string" && !httpUrl(given)) {
    const fault = urlPortProblem(given) ?? "is not an http:// or https:// URL";
    return `server "${name}": "url" ${fault}: ${JSON.stringify(redactedUrl(given).slice(0, 200))}`;
  }
  const parsed = entrySchemas().remote.safeParse(value);
  if (!parsed.success) {
    if ("url" in record) {
      return `server "${name}": ${entryProblem(value, parsed.error)}`;
    }
    // Its unknown keys, each with the one of the two it is closest to ("comand", "ulr").
    const known = [...new Set([...STDIO_KEYS, ...REMOTE_KEYS])];
    const misspelt = Object.keys(record)
      .filter((key) => !known.includes(key))
      .map((key) => unknownKey(key, ["command", "url"]));
    return `server "${name}": needs "command" (stdio) or "url" (http, sse)${misspelt.length === 0 ? "" : `; it has ${misspelt.join(", ")}`}`;
  }
  const { type, url, headers, tools, timeout } = parsed.data;
  return {
    type: type === "sse" ? "sse" : "http",
    url,
    headers: headers ?? {},
    ...options(tools, timeout),
  };
}

/**
 * The warnings about the keys of a server entry turnloop does not read, each ignored, as an
 * unknown key of a config file is (README "Config files"): `unknown key "comand" (did you mean
 * "command"?) ignored`; a key of the other kind of server says so (`"url" ignored: a server
 * with "command" is a stdio server`). For the entries of files and apps, not ACP's (whose schema
 * has `name` and `_meta`).
 */
export function entryWarnings(value: unknown): string[] {
  if (typeof value !== "object" || value === null) {
    return [];
  }
  const stdio = "command" in value;
  const known = stdio ? STDIO_KEYS : REMOTE_KEYS;
  const other = stdio ? REMOTE_KEYS : STDIO_KEYS;
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) =>
      other.includes(key)
        ? `${JSON.stringify(key)} ignored: a server with "${stdio ? "command" : "url"}" is ${stdio ? "a stdio server" : "an http or sse server"}`
        : `${unknownKey(key, known)} ignored`,
    );
}

/** `unknown key "comand" (did you mean "command"?)`: `key`, with the one of `known` it is closest to. */
function unknownKey(key: string, known: readonly string[]): string {
  const near = closestName(key, known);
  return `unknown key ${JSON.stringify(key)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}`;
}

/**
 * The first invalid value of an entry, in the config files' words: `args must be a list ([…]),
 * not the string "-y"`, `env.A must be a string, not the number 1`.
 */
function entryProblem(value: unknown, error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) {
    return "is not a server";
  }
  const field = issue.path
    .map((key, index) =>
      typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`,
    )
    .join("");
  if (issue.code === "invalid_union") {
    // `env` and `headers`: an object of strings, or ACP's `[{name, value}]`.
    return keyValuesProblem(field, (value as Record<PropertyKey, unknown>)[issue.path[0] ?? ""]);
  }
  return `${field} ${describeIssue(value, issue)}`;
}

/** Why `given` is not an object of strings or a list of `{name, value}`, naming `field`. */
function keyValuesProblem(field: string, given: unknown): string {
  if (Array.isArray(given)) {
    const index = given.findIndex(
      (item: unknown) =>
        typeof item !== "object" ||
        item === null ||
        typeof (item as { name?: unknown }).name !== "string" ||
        typeof (item as { value?: unknown }).value !== "string",
    );
    if (index >= 0) {
      return `${field}[${index}] must be {"name": "…", "value": "…"} with strings, not ${kindOf(given[index])}`;
    }
  }
  if (typeof given === "object" && given !== null) {
    const wrong = Object.entries(given).find(([, item]) => typeof item !== "string");
    if (wrong !== undefined) {
      return `${field}.${wrong[0]} must be a string, not ${kindOf(wrong[1])}`;
    }
  }
  return `${field} must be an object of strings ({"NAME": "value"}), not ${kindOf(given)}`;
}

/** Whether `value` parses as a URL with scheme http or https (WHATWG URL, as `fetch` reads it). */
function httpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function options(tools: string[] | undefined, timeout: number | undefined): McpServerCommon {
  return {
    ...(tools === undefined ? {} : { tools }),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
  };
}

/**
 * Reads an `mcpServers` object (`{name: server}`); `where` prefixes each problem and each
 * warning (an entry's keys that are not read, {@link entryWarnings}).
 */
export function parseServers(value: unknown, where: string): ParsedServers {
  const servers: McpServerConfigs = {};
  const problems: string[] = [];
  const warnings: string[] = [];
  if (value === undefined || value === null) {
    return { servers, problems };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return { servers, problems: [`${where}: "mcpServers" must be an object of servers by name`] };
  }
  for (const [name, entry] of Object.entries(value)) {
    const parsed = parseServerEntry(name, entry);
    if (typeof parsed === "string") {
      problems.push(`${where}: ${parsed}`);
    } else {
      servers[name] = parsed;
      warnings.push(
        ...entryWarnings(entry).map((warning) => `${where}: server "${name}": ${warning}`),
      );
    }
  }
  return { servers, problems, ...(warnings.length === 0 ? {} : { warnings }) };
}

/**
 * Reads a config file holding `{"mcpServers": {...}}`. A missing file has no servers, and no
 * problem unless the user `named` it (`--mcp-config`); unreadable or invalid JSON is one problem
 * naming the file (never quoting it); another top-level key is a warning (VS Code's `{"servers":
 * …}` included). The usual files (the project's `.mcp.json`, the user's `mcp.json`) are read by
 * the one reader of project files (tools/project-file.ts: a regular file of at most 1 MiB; the
 * project's within its project and out of the hidden places); a file the user named is read as
 * given, so `--mcp-config <(…)` (a pipe) still works.
 */
export async function readServersFile(
  path: string,
  options: { named?: boolean } = {},
): Promise<ParsedServers> {
  // A file the user named (`--mcp-config`) must be there; the usual places may be empty.
  const missing = {
    servers: {},
    problems: options.named === true ? [`${path}: no such file`] : [],
  };
  // The project's `.mcp.json` (a file of that name the user did not name) must lie in its project.
  const project = basename(path) === PROJECT_SERVERS_FILE ? dirname(path) : undefined;
  const read =
    options.named === true ? await readNamedFileText(path) : readConfigFileText(path, project);
  if (read === undefined) {
    return missing;
  }
  if (read.problem !== undefined) {
    return { servers: {}, problems: [read.problem] };
  }
  const text = read.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      servers: {},
      problems: [`${path} is not valid JSON: ${jsonSyntaxMessage(text, error)}`],
    };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { servers: {}, problems: [`${path}: expected {"mcpServers": {...}}`] };
  }
  const file = json as Record<string, unknown>;
  const parsed = parseServers(file.mcpServers, path);
  const warnings = [...unknownTopLevelKeys(file, path), ...(parsed.warnings ?? [])];
  return { ...parsed, ...(warnings.length === 0 ? {} : { warnings }) };
}

/** Whether `tool` (the server's own name) is offered under the server's `tools` list. */
export function toolSelected(config: McpServerConfig, tool: string): boolean {
  return config.tools === undefined || config.tools.includes("*") || config.tools.includes(tool);
}
