/**
 * The MCP servers of one session. They all start at once when the session opens; a prompt waits
 * for those still starting at most until each one's start-up wait has passed (default 5 s from
 * its start), then goes on with the servers that are ready. A server that connects later offers
 * its tools from the next model request on; one that fails is reported through `onStatus` and left out.
 */

import type { AnyTool } from "../define-tool.js";
import type { McpServerConfig, McpServerConfigs } from "./config.js";
import { CONNECT_TIMEOUT_MS, McpConnection, type McpServerState } from "./connection.js";
import { type McpToolAssignment, OfferedTools } from "./offered-tools.js";
import { type McpToolNaming, namesToolOf, unavailableServerTool } from "./tools.js";

export { mcpStatusNotice } from "./status-notice.js";

/** How long a prompt waits for a server that is still starting, from the server's start (ms). */
export const DEFAULT_STARTUP_WAIT_MS = 5_000;

/**
 * Told once, before a call of a server's tool waits for the server to start: the server, and the
 * words of the wait (`waiting for MCP server fs to start (at most 57.3 s more)`: what is left of
 * its connection attempt, connection.ts `attemptEnds`).
 */
export type WaitingForServer = (wait: { serverName: string; message: string }) => void;

/** One server's state, for `turnloop mcp list` and status events. */
export interface McpServerSummary {
  name: string;
  state: McpServerState;
  toolCount: number;
  /** Why it failed. */
  error?: string;
  /** `stdio`, `http` or `sse`. */
  type: string;
  /** Set while the server is turned off ({@link McpServers.disable}). */
  disabled?: true;
  /**
   * Its tools not offered as it lists them ({@link McpServers.tools}): one sentence each, a tool
   * left out (`tool "odd" is left out: its inputSchema is no valid JSON Schema (…)`), listed twice
   * (`tool "echo" is listed twice; offered once, as w__echo`) or renamed (`tool "get_data" is
   * offered as w__get_data_2: w__get_data is tool "get.data" of server w`). `mcp list --json`
   * shows it as is (named `renamedTools` before session 44).
   */
  toolNotes?: string[];
}

export interface McpServersOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  version: string;
  /** Start-up wait per server (ms); {@link DEFAULT_STARTUP_WAIT_MS} by default. */
  startupWaitMs?: number;
  /**
   * Connect timeout per server (ms): past it a server that has not answered fails. Default: the
   * longer of connection.ts `CONNECT_TIMEOUT_MS` (60 s) and the start-up wait.
   */
  connectTimeoutMs?: number;
  /**
   * Every state change of a server (connected, failed, stopped), and a server still `pending`
   * (with `error`) when a prompt's start-up wait is over.
   */
  onStatus?: (summary: McpServerSummary) => void;
  /** Tool list changes of a connected server. */
  onToolsChanged?: (summary: McpServerSummary) => void;
  /**
   * A server's tools offered under other names than usual, or left out, to keep every name the
   * model sees unique ({@link McpServers.tools}): said once per change, each sentence with the
   * server's name (`MCP server w: tool "echo" is listed twice; offered once, as w__echo`).
   */
  onRenamedTools?: (serverName: string, sentences: readonly string[]) => void;
  /** How the tools are named to the model (tools.ts); `turnloop` by default. */
  toolNaming?: McpToolNaming;
  /**
   * The names a resumed session's log gave its servers' tools, in order (offered-tools.ts
   * `OfferedTools.restore`): each keeps naming the same server's same tool.
   */
  restoredToolNames?: readonly McpToolAssignment[];
}

export class McpServers {
  private readonly connections: McpConnection[];
  /** Servers turned off by {@link disable}, by name. */
  private readonly disabled = new Set<string>();
  private readonly states = new Map<McpConnection, McpServerState>();
  private readonly deadline: number;
  private readonly startupWaitMs: number;
  private readonly offered: OfferedTools;
  /** Servers reported still starting after the start-up wait ({@link reportStillStarting}). */
  private readonly reportedPending = new WeakSet<McpConnection>();
  private closing: Promise<void> | undefined;

  /** Starts every server in `configs` (in parallel; nothing is awaited here). */
  constructor(
    configs: McpServerConfigs,
    private readonly options: McpServersOptions,
  ) {
    this.startupWaitMs = options.startupWaitMs ?? DEFAULT_STARTUP_WAIT_MS;
    this.offered = new OfferedTools(options.toolNaming, (serverName, sentences) =>
      options.onRenamedTools?.(serverName, sentences),
    );
    this.offered.restore(options.restoredToolNames ?? []);
    this.deadline = Date.now() + this.startupWaitMs;
    this.connections = Object.entries(configs).map(([name, config]) => this.start(name, config));
  }

  private start(name: string, config: McpServerConfig): McpConnection {
    const options = this.options;
    return new McpConnection(name, config, {
      cwd: options.cwd,
      env: options.env,
      version: options.version,
      // A start-up wait longer than the connect timeout lengthens it: the MCP client's requests
      // (`initialize`, `tools/list`) take it, so a server may answer until the wait is over.
      connectTimeoutMs:
        options.connectTimeoutMs ?? Math.max(CONNECT_TIMEOUT_MS, this.startupWaitMs),
      onChange: (connection) => {
        const summary = this.summarize(connection);
        if (this.states.get(connection) !== connection.state) {
          this.states.set(connection, connection.state);
          options.onStatus?.(summary);
        } else {
          options.onToolsChanged?.(summary);
        }
      },
    });
  }

  /**
   * Starts the servers of `configs` this session does not have yet (a client joining the session
   * with servers of its own), in the background as the first ones; a server it has keeps running
   * as it is.
   * @returns the names of those it has whose settings in `configs` differ from the running ones.
   */
  add(configs: McpServerConfigs): string[] {
    const differing: string[] = [];
    for (const [name, config] of Object.entries(configs)) {
      const running = this.connections.find((connection) => connection.name === name);
      if (running === undefined) {
        this.connections.push(this.start(name, config));
      } else if (JSON.stringify(running.config) !== JSON.stringify(config)) {
        differing.push(name);
      }
    }
    return differing;
  }

  /**
   * Stops server `name` and keeps it off (its tools leave the next model request) until
   * {@link enable}. Resolves once it is closed.
   * @throws Error naming the session's servers when there is no server `name`.
   */
  async disable(name: string): Promise<void> {
    const connection = this.named(name);
    this.disabled.add(name);
    await connection.close();
  }

  /**
   * Starts server `name` again after {@link disable} (a server that is on stays as it is).
   * Resolves once it has connected or failed.
   * @throws as {@link disable}.
   */
  async enable(name: string): Promise<void> {
    const connection = this.named(name);
    if (this.disabled.delete(name)) {
      await this.replace(connection).ready;
    }
  }

  /**
   * Stops server `name` and starts it anew (a reconnect: a new process or connection, its tool
   * list read again), enabling it if it was disabled. Resolves once it has connected or failed.
   * @throws as {@link disable}.
   */
  async restart(name: string): Promise<void> {
    const connection = this.named(name);
    this.disabled.delete(name);
    await connection.close();
    await this.replace(connection).ready;
  }

  private replace(connection: McpConnection): McpConnection {
    const next = this.start(connection.name, connection.config);
    this.connections[this.connections.indexOf(connection)] = next;
    return next;
  }

  private named(name: string): McpConnection {
    const connection = this.connections.find((candidate) => candidate.name === name);
    if (connection === undefined) {
      const names = this.connections.map((candidate) => candidate.name);
      throw new Error(
        `no MCP server "${name}" in this session (${names.length === 0 ? "it has none" : `its servers: ${names.join(", ")}`})`,
      );
    }
    return connection;
  }

  /** Whether there are no servers at all. */
  get empty(): boolean {
    return this.connections.length === 0;
  }

  /**
   * Waits for the servers still starting, each at most until the start-up wait has passed (or
   * `signal` aborts). Resolves at once when all are settled or the wait is over.
   */
  async whenStarted(signal?: AbortSignal): Promise<void> {
    const remaining = this.deadline - Date.now();
    // Whether the wait ran out: a timer may fire a millisecond before `Date.now()` reaches the
    // deadline (timers keep the monotonic clock), and the servers still starting are said then too.
    let waitedOut = false;
    if (remaining > 0 && this.connections.some((connection) => connection.state === "pending")) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waitedOut = true;
          done();
        }, remaining);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        }
        signal?.addEventListener("abort", done, { once: true });
        Promise.all(this.connections.map((connection) => connection.ready)).then(done, done);
      });
    }
    if (signal?.aborted !== true && (waitedOut || Date.now() >= this.deadline)) {
      this.reportStillStarting();
    }
  }

  /**
   * Reports, once each through `onStatus` (state `pending`, with `error` saying why), the servers
   * still starting when the start-up wait is over: the prompt goes on without them, and a server
   * that never answers would otherwise only show as a tool the model is told does not exist. As
   * README says, one that connects later offers its tools from the next model request.
   */
  private reportStillStarting(): void {
    for (const connection of this.connections) {
      const reason = connection.noAnswerWithin(this.startupWaitMs);
      if (reason === undefined || this.reportedPending.has(connection)) {
        continue;
      }
      this.reportedPending.add(connection);
      this.options.onStatus?.({
        ...this.summarize(connection),
        error: `${reason}; the session goes on without its tools until it answers`,
      });
    }
  }

  /**
   * The tools of the connected servers, as they are now, each under a name unique among them and
   * `taken` (the session's other tools), as offered-tools.ts `OfferedTools` says; each change of what was
   * renamed is said through `onRenamedTools`.
   */
  tools(taken: Iterable<string> = []): AnyTool[] {
    const connected = this.connections.filter((connection) => connection.state === "connected");
    return this.offered.offer(connected, taken);
  }

  /**
   * The tool a call of `toolName` names: the one offered, else, for a tool of a server that is not
   * connected (failed, stopped, still starting), tools.ts {@link unavailableServerTool}, titled as
   * a live server's tool is (`server: tool`). Undefined when no server's name prefixes it.
   */
  toolNamed(toolName: string): AnyTool | undefined {
    const offered = this.tools().find((tool) => tool.name === toolName);
    const connection = offered === undefined ? this.serverOf(toolName) : undefined;
    return connection === undefined || connection.state === "connected"
      ? offered
      : unavailableServerTool(connection, toolName, this.options.toolNaming);
  }

  /**
   * What the loop reads of these servers (agent/loop.ts `AgentSettings`): the tools offered to
   * each model request ({@link tools}, named apart from `taken`, the session's other tools) and
   * the lookup of a tool not offered ({@link unavailableTool}).
   */
  loopTools(taken: readonly string[] = []): {
    changingTools: () => AnyTool[];
    unavailableTool: (
      toolName: string,
      signal: AbortSignal,
      waiting?: WaitingForServer,
    ) => Promise<AnyTool | string | undefined>;
  } {
    return {
      changingTools: () => this.tools(taken),
      unavailableTool: (toolName, signal, waiting) =>
        this.unavailableTool(toolName, signal, taken, waiting),
    };
  }

  /**
   * What a call of `toolName`, a tool not offered to the model, is about, when it names a tool of
   * one of these servers (`<server>__<tool>` or `<server>-<tool>`, by the session's naming): a
   * server still starting is waited for, until it connects or fails (at most what is left of its
   * connection attempt) or `signal` aborts, said first through `waiting` (`waiting for MCP server
   * fs to start (at most 57.3 s more)`); the tool, when it is now offered; otherwise the words the call
   * is answered with ({@link McpConnection.unavailable}: the server stopped or failed to start,
   * and why; or that it is turned off). Undefined when no server's name prefixes `toolName`, or
   * its server is connected (then the tool does not exist).
   */
  async unavailableTool(
    toolName: string,
    signal: AbortSignal,
    taken: readonly string[] = [],
    waiting?: WaitingForServer,
  ): Promise<AnyTool | string | undefined> {
    const connection = this.serverOf(toolName);
    if (connection === undefined) {
      return undefined;
    }
    if (this.disabled.has(connection.name)) {
      return `MCP server ${connection.name} is turned off; its tools are unavailable until it is turned on again`;
    }
    if (connection.state === "pending") {
      // Only what is left of the attempt (connection.ts `attemptEnds`), in tenths of a second.
      const left = Math.max(0, Math.ceil((connection.attemptEnds - Date.now()) / 100) / 10);
      const message = `waiting for MCP server ${connection.name} to start (at most ${left} s more)`;
      waiting?.({ serverName: connection.name, message });
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        signal.addEventListener("abort", done, { once: true });
        connection.ready.then(done, done);
      });
    }
    if (signal.aborted || connection.state === "connected") {
      return this.tools(taken).find((tool) => tool.name === toolName);
    }
    return connection.unavailable();
  }

  /** The server whose tool `toolName` would be, by the longest server name that prefixes it. */
  private serverOf(toolName: string): McpConnection | undefined {
    let found: McpConnection | undefined;
    for (const connection of this.connections) {
      if (
        namesToolOf(toolName, connection.name, this.options.toolNaming) &&
        (found === undefined || connection.name.length > found.name.length)
      ) {
        found = connection;
      }
    }
    return found;
  }

  /**
   * Fails every server still starting, for a caller that waited {@link whenStarted} and will not
   * wait longer (`turnloop mcp list`): each says it got no answer within the start-up wait.
   */
  giveUpOnPending(): void {
    for (const connection of this.connections) {
      connection.giveUp(this.startupWaitMs);
    }
  }

  /**
   * Checks that the connected remote servers are still there ({@link McpConnection.check}, at most
   * `timeoutMs` each, in parallel): one that cannot be reached is failed, and reported.
   */
  async check(timeoutMs = 3_000): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.check(timeoutMs)));
  }

  /** Every server's state. */
  list(): McpServerSummary[] {
    return this.connections.map((connection) => this.summarize(connection));
  }

  private summarize(connection: McpConnection): McpServerSummary {
    return {
      name: connection.name,
      state: connection.state,
      toolCount: connection.state === "connected" ? connection.tools.length : 0,
      type: connection.config.type,
      ...(connection.error === undefined ? {} : { error: connection.error }),
      ...(this.disabled.has(connection.name) ? { disabled: true } : {}),
      ...this.offered.toolNotesOf(connection.name),
    };
  }

  /** Closes every server (stdio process groups are killed if they linger). Idempotent. */
  close(): Promise<void> {
    this.closing ??= Promise.all(this.connections.map((connection) => connection.close())).then(
      () => undefined,
    );
    return this.closing;
  }
}
