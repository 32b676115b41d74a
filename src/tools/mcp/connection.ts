/**
 * One MCP server of a session: its client (the official `@modelcontextprotocol/client`), its
 * state and its current tool list (refreshed on `notifications/tools/list_changed`).
 *
 * The client library (about 1 MiB of modules with its packages), our stdio transport, the
 * words of remote failures (remote-failure.ts), the remote transports (remote-transport.ts) and
 * the check of a tool list (tool-list.ts) are loaded with the first connection (client-modules.ts),
 * so a run with no MCP server configured never loads them (issue 26; test/cli/modules-loaded.test.ts checks it).
 */

import type {
  CallToolResult,
  Client,
  Tool as McpTool,
  Transport,
} from "@modelcontextprotocol/client";
import { errorCode, errorMessage } from "../../events/errors.js";
import { type ClientModules, loadClientModules } from "./client-modules.js";
import { DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig, toolSelected } from "./config.js";
import type { ProcessGroupStdioTransport } from "./stdio-transport.js";
import type { CheckedTools } from "./tool-list.js";

/** A call of a server that is not connected, or stopped during the call ({@link McpConnection.unavailable}). */
export class McpServerUnavailableError extends Error {}

/** Copilot's `McpServerStatus` values that turnloop uses. */
export type McpServerState = "pending" | "connected" | "failed" | "stopped";

/** How long connecting (spawn + `initialize` + `tools/list`) may take before the server fails (ms). */
export const CONNECT_TIMEOUT_MS = 60_000;

export interface McpConnectionOptions {
  /** The session's cwd: a stdio server's default working directory. */
  cwd: string;
  /** turnloop's environment; a stdio server gets only its safe part (stdio-transport.ts `inheritedEnvironment`). */
  env: NodeJS.ProcessEnv;
  /** turnloop's version, sent as `clientInfo.version`. */
  version: string;
  /** Called on every state change and tool list change. */
  onChange: (connection: McpConnection) => void;
  connectTimeoutMs?: number;
}

export class McpConnection {
  state: McpServerState = "pending";
  /** Why the server failed (`state === "failed"`), with the end of its stderr when it has one. */
  error: string | undefined;
  /** The tools offered, after the config's `tools` filter. */
  tools: McpTool[] = [];
  /** A sentence for each tool of its list left out (tool-list.ts), e.g. a schema no provider takes. */
  leftOut: string[] = [];
  /**
   * Settles (never rejects) once the server is connected or has failed: at the latest when the
   * attempt ends ({@link attemptEnds}), whatever the requests of the attempt still wait on.
   */
  readonly ready: Promise<void>;
  /** When the connection attempt ends (ms since the epoch): its start plus {@link connectTimeoutMs}. */
  readonly attemptEnds: number;
  /** Created once the client library is loaded (the connection is `pending` until then). */
  private client: Client | undefined;
  /** The modules of {@link loadClientModules}, once loaded. */
  private modules: ClientModules | undefined;
  private transport: Transport | undefined;
  /** The transport when the server is a stdio one: its stderr goes into error reports. */
  private stdio: ProcessGroupStdioTransport | undefined;
  /** Whether the server answered `initialize` (until then a failure may show it is no server). */
  private initialized = false;
  /** The `tools/list` started by the latest `list_changed`, until it is answered. */
  private refreshing: Promise<void> | undefined;
  /** Whether the server was connected at some point (a failure after that is a stop). */
  private hadConnected = false;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.attemptEnds = Date.now() + this.connectTimeoutMs;
    this.ready = this.connect();
  }

  /** How long connecting may take before the server fails (ms): the option, or 60 s. */
  get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  }

  /**
   * Calls a tool (its name on the server). `signal` aborting sends `notifications/cancelled`
   * and rejects at once (the SDK's request cancellation).
   * @throws when the server is not connected, answers with a JSON-RPC error, times out or dies;
   * a server that exits during the call, or a remote one that can no longer be reached, is
   * marked `failed` first, and the error is {@link unavailable}'s: `MCP server <name> stopped:
   * nothing is listening at <url>; its tools are …` (README "MCP servers").
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (this.state !== "connected" || client === undefined) {
      throw new McpServerUnavailableError(this.unavailable());
    }
    const result = (await client
      .callTool(
        { name, arguments: args },
        {
          signal,
          timeout: this.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
        },
      )
      .catch((error: unknown) => {
        // A stdio server that exited during the call is marked failed before the call fails.
        throw (
          this.goneAway(error) ??
          (this.state === "failed" ? new McpServerUnavailableError(this.unavailable()) : error)
        );
      })) as CallToolResult;
    // A call that changed the tool list (the server said so before answering) returns once the
    // new list is known, so the next model request offers it.
    await this.refreshing;
    return result;
  }

  /**
   * Fails a server still starting (`pending`) that a caller stopped waiting for after `waitedMs`
   * (`turnloop mcp list` past its start-up wait): `initialize (or tools/list) got no answer within
   * 5 s`, said as every failure is (what a stdio server printed first, its stderr). Nothing for a
   * server in any other state.
   */
  giveUp(waitedMs: number): void {
    const reason = this.noAnswerWithin(waitedMs);
    if (reason !== undefined) {
      this.fail(new Error(reason));
    }
  }

  /**
   * What a server still starting (`pending`) after `waitedMs` waits on: `initialize (or
   * tools/list) got no answer within 5 s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS)`;
   * undefined in any other state.
   */
  noAnswerWithin(waitedMs: number): string | undefined {
    if (this.state !== "pending") {
      return undefined;
    }
    const request = this.initialized ? "tools/list" : "initialize";
    // The wait is the start-up wait: a server's `timeout` is for its tool calls (README "MCP servers").
    return `${request} got no answer within ${waitedMs / 1000} s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS)`;
  }

  /**
   * What a call of one of this server's tools is told while the server is not connected
   * (README "MCP servers"): `MCP server fs stopped: the server exited with exit code 3; its tools are
   * unavailable until it is started again (resuming the session starts it anew)` for a server lost
   * after it had connected, `MCP server fs failed to start: …` for one that never did, `MCP server fs is
   * stopped …` once closed, `MCP server fs is still starting` while it starts.
   */
  unavailable(): string {
    // What every face offers: a resumed session (`turnloop --continue`, ACP `session/load`, SDK
    // `resumeSession`) starts its servers anew; an SDK app may also `session.mcp.restartServer`.
    const rest =
      "its tools are unavailable until it is started again (resuming the session starts it anew)";
    switch (this.state) {
      case "failed":
        return `MCP server ${this.name} ${this.hadConnected ? "stopped" : "failed to start"}: ${this.error ?? "unknown error"}; ${rest}`;
      case "stopped":
        return `MCP server ${this.name} is stopped; its tools are unavailable until it is started again`;
      case "pending":
        return `MCP server ${this.name} is still starting`;
      case "connected":
        return `MCP server ${this.name} is connected`;
      default: {
        const unhandled: never = this.state;
        return unhandled;
      }
    }
  }

  /**
   * Asks a connected remote server whether it is still there (MCP `ping`, at most `timeoutMs`):
   * no connection tells the client that an HTTP server stopped, so `/mcp` asks before it lists.
   * One that cannot be reached is marked failed, as at a call; any other answer leaves it as it is.
   */
  async check(timeoutMs: number): Promise<void> {
    if (this.config.type === "stdio" || this.state !== "connected") {
      return;
    }
    await this.client?.ping({ timeout: timeoutMs }).catch((error: unknown) => {
      this.goneAway(error);
    });
  }

  /** Closes the connection; a stdio server's process group is killed if it does not exit. */
  async close(): Promise<void> {
    const wasOpen = this.state === "connected" || this.state === "pending";
    this.state = "stopped";
    await this.client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
    if (wasOpen) {
      this.options.onChange(this);
    }
  }

  private async connect(): Promise<void> {
    const timeout = this.connectTimeoutMs;
    // The whole attempt ends at the connect timeout: each request's own timeout leaves the
    // module loading, the spawn, the requests after the first and a transport's start (the
    // HTTP+SSE fallback's GET has none) unbounded.
    const attempt = setTimeout(() => this.attemptOver(), timeout);
    attempt.unref();
    try {
      const modules = await loadClientModules();
      this.modules = modules;
      if (this.state !== "pending") {
        return;
      }
      const client = new modules.client.Client(
        { name: "turnloop", version: this.options.version },
        {
          capabilities: {},
          listChanged: {
            tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.refresh() },
          },
        },
      );
      client.onclose = () => this.lost();
      this.client = client;
      await this.open(client, modules, timeout);
      this.initialized = true;
      if (this.state !== "pending") {
        return;
      }
      const checked = await modules.toolList.checkedTools(client, modules.client, { timeout });
      this.state = "connected";
      this.hadConnected = true;
      this.setTools(checked);
    } catch (error) {
      if (this.state === "pending") {
        this.fail(this.connectTimedOut(error) ?? error);
        await this.transport?.close().catch(() => undefined);
      }
    } finally {
      clearTimeout(attempt);
    }
  }

  /** The attempt's time is over: a server still `pending` fails, said as a request's timeout. */
  private attemptOver(): void {
    if (this.state === "pending") {
      this.fail(new Error(this.noAnswerWords()));
      void this.transport?.close().catch(() => undefined);
    }
  }

  /** `initialize (or tools/list) got no answer within 60 s (the connect timeout)`. */
  private noAnswerWords(): string {
    const request = this.initialized ? "tools/list" : "initialize";
    return `${request} got no answer within ${this.connectTimeoutMs / 1000} s (the connect timeout)`;
  }

  /**
   * The MCP client's bare `Request timed out` while connecting, in README's words naming the
   * request and the wait: `initialize got no answer within 60 s (the connect timeout)`; undefined
   * for any other error.
   */
  private connectTimedOut(error: unknown): Error | undefined {
    return errorCode(error) === "REQUEST_TIMEOUT"
      ? new Error(this.noAnswerWords(), { cause: error })
      : undefined;
  }

  private async open(client: Client, modules: ClientModules, timeout: number): Promise<void> {
    const { config } = this;
    if (config.type === "stdio") {
      const inherited = modules.transport.inheritedEnvironment(this.options.env);
      this.stdio = new modules.transport.ProcessGroupStdioTransport({
        command: config.command,
        args: config.args,
        env: { ...inherited, ...config.env },
        cwd: config.cwd ?? this.options.cwd,
      });
      this.transport = this.stdio;
      await client.connect(this.transport, { timeout });
      return;
    }
    this.transport = modules.remoteTransport.remoteTransport(modules.client, config, config.type);
    try {
      await client.connect(this.transport, { timeout });
    } catch (error) {
      if (config.type !== "http" || this.state !== "pending") {
        throw error;
      }
      // Servers that predate Streamable HTTP speak the HTTP+SSE transport at the same URL.
      await this.transport.close().catch(() => undefined);
      this.transport = modules.remoteTransport.remoteTransport(modules.client, config, "sse");
      await client.connect(this.transport, { timeout }).catch(() => {
        throw error;
      });
    }
  }

  /** `notifications/tools/list_changed`: fetches the new list (a failure keeps the old one). */
  private refresh(): void {
    const { client, modules } = this;
    if (this.state !== "connected" || client === undefined || modules === undefined) {
      return;
    }
    const refreshing = modules.toolList
      .checkedTools(client, modules.client, { timeout: CONNECT_TIMEOUT_MS })
      .then(
        (checked) => this.setTools(checked),
        () => undefined,
      )
      .finally(() => {
        if (this.refreshing === refreshing) {
          this.refreshing = undefined;
        }
      });
    this.refreshing = refreshing;
  }

  private setTools({ tools, leftOut }: CheckedTools): void {
    this.tools = tools.filter((tool) => toolSelected(this.config, tool.name));
    this.leftOut = leftOut;
    this.options.onChange(this);
  }

  /**
   * When a connected remote server's call failed because the server cannot be reached any more
   * (an HTTP server stopped: no connection tells the client so), marks it failed, as a stdio
   * server that exits is, and returns the error its call gets; undefined for any other failure.
   */
  private goneAway(error: unknown): Error | undefined {
    const remote = this.modules?.remote;
    if (
      this.config.type === "stdio" ||
      this.state !== "connected" ||
      !remote?.isUnreachable(error)
    ) {
      return undefined;
    }
    this.fail(error);
    void this.transport?.close().catch(() => undefined);
    return new McpServerUnavailableError(this.unavailable());
  }

  /**
   * Marks the server failed with `error`'s message (for a remote server, said by remote-failure.ts:
   * "nothing is listening at <url>", "did not answer as an MCP server (HTTP 404 …)"), said as "did not answer as an MCP server"
   * when what a stdio server printed before answering `initialize` shows it is none
   * (first-output.ts), and the end of its stderr.
   */
  private fail(error: unknown): void {
    const stderr = this.stdio?.stderr.trim() ?? "";
    const { config } = this;
    const remote = this.modules?.remote;
    const failure =
      config.type === "stdio" || remote === undefined
        ? errorMessage(error)
        : remote.remoteFailure(error, config.url);
    const why = (this.initialized ? undefined : this.stdio?.notAnMcpServer(failure)) ?? failure;
    this.state = "failed";
    // One line: the message is a sentence every face shows on a line (trial 38 F3); the
    // stderr's line breaks are shown as U+23CE (return symbol).
    const quoted = stderr.slice(-500).split(/\r?\n/).join(" \u23ce ");
    this.error = `${why}${stderr === "" ? "" : ` (stderr: ${quoted})`}`;
    this.tools = [];
    this.options.onChange(this);
  }

  /**
   * The client's connection closed. A remote server still connecting is left to `connect`, which
   * reports the request's own failure (the transport closes as that request fails, before it is
   * thrown) and may try the HTTP+SSE transport.
   */
  private lost(): void {
    if (this.state === "pending" && this.config.type !== "stdio") {
      return;
    }
    if (this.state === "connected" || this.state === "pending") {
      // A stdio server's process has ended by now (the transport closes on its exit).
      const exit = this.stdio?.exit;
      this.fail(
        new Error(exit === undefined ? "the server closed the connection" : `the server ${exit}`),
      );
    }
  }
}
