/**
 * What trusting a project would do, line by line, for the trust questions of `turnloop -p` and
 * the interactive session (cli/project-trust-question.ts, cli/mcp-trust-question.ts): each held
 * key of its `.turnloop/config.json` with its value (project-holds.ts) and each MCP server it
 * would start with its command line or URL. The values come from a file of a repository the user
 * has not trusted yet, so each is made safe to draw on a terminal (control characters and those
 * that reorder or hide text shown as code points, `⟨U+001B⟩`: events/errors.ts `markedText`) and bounded ({@link MAX_VALUE_CHARACTERS}, the cut said with how much
 * was left out); a URL always shows its scheme and host whole, a database URL never its password.
 */

import { markedText } from "../events/errors.js";
import { redactDatabaseUrl, redactedUrl } from "../llm/shown-values.js";
import type { McpServerConfig } from "../tools/mcp/config.js";
import { serversByFile, type UntrustedProject } from "./mcp-servers.js";

/** Characters of one value shown at most; the rest is cut with a note. */
export const MAX_VALUE_CHARACTERS = 160;

/** Characters shown of a list of values (`permissions.allow`) before the rest is counted. */
const MAX_LIST_ITEMS = 8;

/** `text` with every control character shown as its code point (`⟨U+001B⟩`), nothing drawn by it. */
export function drawable(text: string): string {
  return markedText(text);
}

/** `text` made drawable and cut to `limit` characters: `…` and `(N more characters)` say the cut. */
export function bounded(text: string, limit = MAX_VALUE_CHARACTERS): string {
  const safe = drawable(text);
  if (safe.length <= limit) {
    return safe;
  }
  return `${safe.slice(0, limit)}… (${safe.length - limit} more characters)`;
}

/**
 * A URL with its scheme and host always whole (where the data goes), its password and secret
 * query values never shown (`***`: llm/shown-values.ts `redactedUrl`), and the rest bounded; a
 * value that is not a URL is bounded as text.
 */
export function shownUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(redactedUrl(value));
  } catch {
    return bounded(redactedUrl(value));
  }
  const { href } = url;
  const hostEnd = href.indexOf("/", url.protocol.length + 2);
  const head = hostEnd === -1 ? href : href.slice(0, hostEnd);
  const rest = href.slice(head.length);
  return `${drawable(head)}${rest === "" ? "" : bounded(rest, Math.max(20, MAX_VALUE_CHARACTERS - head.length))}`;
}

/** A word of a command line as a POSIX shell would read it back (quoted when it must be). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * One MCP server as the trust question lists it: `name: command args…` (the names of its `env`
 * variables and its `cwd` after it, never the values) or `name: http https://host/path`.
 */
export function serverLine(name: string, config: McpServerConfig): string {
  if (config.type === "stdio") {
    const command = bounded([config.command, ...config.args].map(shellWord).join(" "));
    const env = Object.keys(config.env);
    const extras = [
      ...(env.length === 0 ? [] : [`env ${bounded(env.join(", "), 80)}`]),
      ...(config.cwd === undefined ? [] : [`in ${bounded(config.cwd, 80)}`]),
    ];
    return `${bounded(name, 64)}: ${command}${extras.length === 0 ? "" : ` (${extras.join("; ")})`}`;
  }
  return `${bounded(name, 64)}: ${config.type} ${shownUrl(config.url)}`;
}

/**
 * One held key of a project config and its value, as the trust question lists it
 * (`permissions.mode: full-access`, `baseUrl: https://host/v1 (model requests and the API key go
 * there)`); `mcpServers` is left to {@link serverLine}, one line a server.
 */
export function heldKeyLine(key: string, value: unknown): string {
  switch (key) {
    case "baseUrl":
      return `baseUrl: ${typeof value === "string" ? shownUrl(value) : bounded(JSON.stringify(value))} (model requests and your API key go there)`;
    case "store":
      return `store: ${typeof value === "string" ? bounded(redactDatabaseUrl(value)) : bounded(JSON.stringify(value))} (sessions are kept there)`;
    case "providers":
      return `providers: ${providerSummary(value)}`;
    case "permissions.allow":
      return `permissions.allow: ${listSummary(value)} (run without asking)`;
    default:
      return `${key}: ${bounded(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)))}`;
  }
}

/** `name → baseUrl` of each provider profile (the URL is where its requests go). */
function providerSummary(value: unknown): string {
  if (typeof value !== "object" || value === null) {
    return bounded(JSON.stringify(value) ?? String(value));
  }
  const profiles = Object.entries(value as Record<string, { baseUrl?: unknown }>).map(
    ([name, profile]) =>
      typeof profile?.baseUrl === "string"
        ? `${bounded(name, 64)} at ${shownUrl(profile.baseUrl)}`
        : bounded(name, 64),
  );
  return listOf(profiles);
}

function listSummary(value: unknown): string {
  if (!Array.isArray(value)) {
    return bounded(JSON.stringify(value) ?? String(value));
  }
  return listOf(
    value.map((item) => bounded(typeof item === "string" ? item : JSON.stringify(item), 80)),
  );
}

/** Items joined with `, `, at most {@link MAX_LIST_ITEMS} of them, then `and N more`. */
function listOf(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LIST_ITEMS).join(", ");
  const more = items.length - MAX_LIST_ITEMS;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/**
 * The lines of the question about an untrusted project's MCP servers, before its last: the files
 * and each server with its command line or URL (bounded, safe to draw: session/trust-lines.ts),
 * then that they run programs from the project. `turnloop -p` (cli/mcp-trust-question.ts) and the interactive session ask it.
 */
export function untrustedServersQuestion(untrusted: UntrustedProject): string[] {
  const files = serversByFile(untrusted).flatMap(([path, names]) => [
    `${bounded(path)} wants to start MCP servers:`,
    ...names.map((name) => {
      const server = untrusted.servers?.[name];
      return `  ${server === undefined ? bounded(name, 64) : serverLine(name, server)}`;
    }),
  ]);
  return [...files, "They run programs from this project."];
}
