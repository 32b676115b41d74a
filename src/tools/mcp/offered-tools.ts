/**
 * The names a session's MCP tools are offered under ({@link OfferedTools}), kept for the
 * session's life and, through its log, across resumes.
 */

import type { Tool as McpTool } from "@modelcontextprotocol/client";
import type { AnyTool } from "../define-tool.js";
import type { McpConnection } from "./connection.js";
import { type McpToolNaming, mcpTool, qualifiedToolName, uniqueToolName } from "./tools.js";

/**
 * The names MCP tools are offered under: unique among the session's tools, since Anthropic's API
 * refuses a request that names a tool twice (400) and the other APIs leave it to chance which one
 * a call reaches, and each kept by its tool for the session's life (trial 42 finding 13): a name
 * once offered always names the same server's same tool, so a call in the history, a question
 * answered and a grant never come to mean another tool when a server connects late. A tool a
 * server lists twice is offered once; a name already given (`get.data` and `get_data` both clean
 * to `w__get_data`; two servers whose names clean alike; an app's tool of that name) gets `_2`,
 * `_3` … ({@link uniqueToolName}), the tool that had it first keeping it. A call still reaches the
 * server's own tool: the turnloop tool keeps it. What was renamed or left out is said, once per change.
 */
export class OfferedTools {
  /** Each server tool's turnloop tool, by the name it is offered under. */
  private readonly cache = new WeakMap<McpTool, Map<string, AnyTool>>();
  /** The sentences last said about each server's names (see {@link toolNotesOf}). */
  private readonly renamed = new Map<string, string[]>();
  /** Every name given in this session, and whose it is (`tool "c" of server a__b`), by name. */
  private readonly owners = new Map<string, { key: string; words: string }>();
  /** The name given to each server's tool (by {@link toolKey}), kept for the session. */
  private readonly given = new Map<string, string>();

  /**
   * @param onRenamed gets a server's sentences each time they change (none when all is as usual).
   */
  constructor(
    private readonly naming: McpToolNaming | undefined,
    private readonly onRenamed: (serverName: string, sentences: readonly string[]) => void,
  ) {}

  /**
   * Gives back the names a session's log records (`tool.execution_start`'s `toolName`,
   * `mcpServerName`, `mcpToolName`; session/resume-fold.ts `McpToolNames`), in the log's order,
   * before any server connects: each name keeps naming the same server's same tool on resume,
   * whatever order the servers connect in, and a tool whose usual name one of them holds gets
   * `_2` … as when a server connects late. A name recorded for two tools (a log written before
   * names were kept) is the later one's.
   */
  restore(assignments: readonly McpToolAssignment[]): void {
    for (const { name, serverName, toolName } of assignments) {
      const key = toolKey(serverName, toolName);
      const previous = this.owners.get(name);
      if (previous !== undefined && previous.key !== key && this.given.get(previous.key) === name) {
        this.given.delete(previous.key);
      }
      this.given.set(key, name);
      this.owners.set(name, { key, words: `tool "${toolName}" of server ${serverName}` });
    }
  }

  /** The tools of `connections` (connected), in order, named apart from `taken` and each other. */
  offer(connections: readonly McpConnection[], taken: Iterable<string>): AnyTool[] {
    const tools: AnyTool[] = [];
    const others = new Set(taken);
    for (const connection of connections) {
      const sentences: string[] = [...connection.leftOut];
      // The name each of the server's tools is offered under, by the server's name of it.
      const listed = new Map<string, string>();
      for (const tool of connection.tools) {
        const offered = listed.get(tool.name);
        if (offered !== undefined) {
          sentences.push(`tool "${tool.name}" is listed twice; offered once, as ${offered}`);
          continue;
        }
        const name = this.nameOf(connection.name, tool.name, others);
        listed.set(tool.name, name);
        const usual = qualifiedToolName(connection.name, tool.name, this.naming);
        if (name !== usual) {
          sentences.push(this.renaming(tool.name, name, usual, others));
        }
        tools.push(this.wrapped(connection, tool, name));
      }
      this.note(connection.name, sentences);
    }
    return tools;
  }

  /**
   * The name of tool `toolName` of server `serverName`: the one it was given before in this
   * session, else its usual name or, when that is taken (by another server's tool, ever, or by
   * one of `others`), the first free `_2`, `_3` … of it; recorded as its own.
   */
  private nameOf(serverName: string, toolName: string, others: ReadonlySet<string>): string {
    const key = toolKey(serverName, toolName);
    const before = this.given.get(key);
    if (before !== undefined && !others.has(before)) {
      return before;
    }
    const usual = qualifiedToolName(serverName, toolName, this.naming);
    const name = uniqueToolName(usual, new Set([...this.owners.keys(), ...others]));
    this.given.set(key, name);
    this.owners.set(name, { key, words: `tool "${toolName}" of server ${serverName}` });
    return name;
  }

  /**
   * Why tool `toolName` is offered as `name`, not `usual`: `tool "get_data" is offered as
   * w__get_data_2: w__get_data is tool "get.data" of server w`, or, when `usual` is free (a
   * name restored from the log), `… as w__get_data_2, its name earlier in this session`.
   */
  private renaming(
    toolName: string,
    name: string,
    usual: string,
    others: ReadonlySet<string>,
  ): string {
    const owner = this.owners.get(usual)?.words ?? (others.has(usual) ? "another tool" : undefined);
    return owner === undefined
      ? `tool "${toolName}" is offered as ${name}, its name earlier in this session`
      : `tool "${toolName}" is offered as ${name}: ${usual} is ${owner}`;
  }

  /**
   * `{ toolNotes }` for a server summary (servers.ts `McpServerSummary`): the sentences about
   * server `serverName`'s tools left out and names, e.g. `tool "echo" is listed twice; offered
   * once, as w__echo`; `{}` when its tools are offered as listed.
   */
  toolNotesOf(serverName: string): { toolNotes?: string[] } {
    const sentences = this.renamed.get(serverName) ?? [];
    return sentences.length === 0 ? {} : { toolNotes: sentences };
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

/** A name given to a server's tool in a session: the name the model calls, the server, the tool. */
export interface McpToolAssignment {
  name: string;
  serverName: string;
  /** The tool's name on its server. */
  toolName: string;
}

/** One key per (server, tool): the two names apart, whatever characters they hold. */
function toolKey(serverName: string, toolName: string): string {
  return JSON.stringify([serverName, toolName]);
}
