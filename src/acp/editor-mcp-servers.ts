/**
 * The MCP servers an editor gives in ACP v1 session setup (`mcpServers` of `session/new`,
 * `session/load`, `session/resume`), read one by one. The ACP SDK has already checked their shape
 * against the v1 schema (a server without `name`, or a stdio one without `command`, is `-32602`
 * there); what the schema allows but turnloop cannot start (an `sse` or `http` server whose `url`
 * is no http:// or https:// URL) fails that server alone, and a name given twice runs the last
 * entry. Both are said on stderr and to the editor, which hides stderr, as notices or thoughts with
 * the session's first updates (`⚠ MCP server s failed: mcpServers[0]: …; its tools are not
 * available`, the words of a server that fails to start: session-setup.ts).
 */

import type * as acp from "@agentclientprotocol/sdk";
import { warningLine } from "../events/errors.js";
import type { Session } from "../session/session.js";
import { type McpServerConfigs, parseServerEntry } from "../tools/mcp/config.js";

/** What was said about each session's given servers, for its opening updates. */
const notes = new WeakMap<Session, string[]>();

/** A name as said in a line: as written when it is plain text, else JSON-quoted (escaped). */
function shownName(name: string): string {
  return /^[^\p{Cc}\p{Cf}]{1,64}$/u.test(name) ? name : JSON.stringify(name);
}

/**
 * Reads `servers` for `session` (see the module comment): the servers to start by name, the
 * problems written to `log` and kept for {@link editorServerNotes}.
 */
export function editorServers(
  session: Session,
  servers: readonly acp.McpServer[],
  log: (line: string) => void,
): McpServerConfigs {
  const configs: McpServerConfigs = {};
  const lines: string[] = [];
  const given = new Map<string, number>();
  servers.forEach((server, index) => {
    const where = `mcpServers[${index}]`;
    const name = shownName(server.name);
    const earlier = given.get(server.name);
    if (earlier !== undefined) {
      lines.push(
        `MCP server ${name} is given twice, as mcpServers[${earlier}] and ${where}: turnloop uses ${where}, the last one`,
      );
    }
    given.set(server.name, index);
    const parsed = parseServerEntry(server.name, server);
    if (typeof parsed === "string") {
      const reason = parsed.replace(/^server "(?:[^"\\]|\\.)*": /, "");
      lines.push(`MCP server ${name} failed: ${where}: ${reason}; its tools are not available`);
      delete configs[server.name];
    } else {
      configs[server.name] = parsed;
    }
  });
  for (const line of lines) {
    log(warningLine(line));
  }
  notes.set(session, lines);
  return configs;
}

/** The lines {@link editorServers} said about `session`'s given servers (none when it was not called). */
export function editorServerNotes(session: Session): readonly string[] {
  return notes.get(session) ?? [];
}
