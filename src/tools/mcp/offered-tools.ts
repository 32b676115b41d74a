/**
 * The names MCP tools are offered under: unique among the session's tools, since Anthropic's API
 * refuses a request that names a tool twice (400) and the other APIs leave it to chance which one
 * a call reaches. A tool a server lists twice is offered once; a name already given (`get.data`
 * and `get_data` both clean to `w__get_data`; two servers whose names clean alike; an app's tool
 * of that name) gets `_2`, `_3` … (tools.ts `uniqueToolName`). A call still reaches the server's
 * own tool: the turnloop tool keeps it. What was renamed or left out is said, once per change.
 */

import type { Tool as McpTool } from "@modelcontextprotocol/client";
import type { AnyTool } from "../define-tool.js";
import type { McpConnection } from "./connection.js";
import { type McpToolNaming, mcpTool, qualifiedToolName, uniqueToolName } from "./tools.js";

/** The tools a session's servers offer, named apart, and what was renamed per server. */
export class OfferedTools {
  /** Each server tool's turnloop tool, by the name it is offered under. */
  private readonly cache = new WeakMap<McpTool, Map<string, AnyTool>>();
  /** The sentences last said about each server's names (see {@link renamedOf}). */
  private readonly renamed = new Map<string, string[]>();

  /**
   * @param onRenamed gets a server's sentences each time they change (none when all is as usual).
   */
  constructor(
    private readonly naming: McpToolNaming | undefined,
    private readonly onRenamed: (serverName: string, sentences: readonly string[]) => void,
  ) {}

  /** The tools of `connections` (connected), in order, named apart from `taken` and each other. */
  offer(connections: readonly McpConnection[], taken: Iterable<string>): AnyTool[] {
    const tools: AnyTool[] = [];
    const owners = new Map<string, string>([...taken].map((name) => [name, "another tool"]));
    for (const connection of connections) {
      const sentences: string[] = [];
      // The name each of the server's tools is offered under, by the server's name of it.
      const listed = new Map<string, string>();
      for (const tool of connection.tools) {
        const offered = listed.get(tool.name);
        if (offered !== undefined) {
          sentences.push(`tool "${tool.name}" is listed twice; offered once, as ${offered}`);
          continue;
        }
        const usual = qualifiedToolName(connection.name, tool.name, this.naming);
        const name = uniqueToolName(usual, new Set(owners.keys()));
        listed.set(tool.name, name);
        if (name !== usual) {
          sentences.push(
            `tool "${tool.name}" is offered as ${name}: ${usual} is ${owners.get(usual)}`,
          );
        }
        owners.set(name, `tool "${tool.name}" of server ${connection.name}`);
        tools.push(this.wrapped(connection, tool, name));
      }
      this.note(connection.name, sentences);
    }
    return tools;
  }

  /**
   * `{ renamedTools }` for a server summary (servers.ts `McpServerSummary`): the sentences about
   * server `serverName`'s names, e.g. `tool "echo" is listed twice; offered once, as w__echo`;
   * `{}` when its tools are offered as usual.
   */
  renamedOf(serverName: string): { renamedTools?: string[] } {
    const sentences = this.renamed.get(serverName) ?? [];
    return sentences.length === 0 ? {} : { renamedTools: sentences };
  }

  private wrapped(connection: McpConnection, tool: McpTool, name: string): AnyTool {
    let byName = this.cache.get(tool);
    if (byName === undefined) {
      byName = new Map();
      this.cache.set(tool, byName);
    }
    let wrapped = byName.get(name);
    if (wrapped === undefined) {
      wrapped = mcpTool(connection, tool, this.naming, name);
      byName.set(name, wrapped);
    }
    return wrapped;
  }

  private note(serverName: string, sentences: string[]): void {
    const before = this.renamed.get(serverName) ?? [];
    if (before.join("\n") === sentences.join("\n")) {
      return;
    }
    this.renamed.set(serverName, sentences);
    if (sentences.length > 0) {
      this.onRenamed(serverName, sentences);
    }
  }
}
