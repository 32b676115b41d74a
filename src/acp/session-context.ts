import type * as acp from "@agentclientprotocol/sdk";
import type { SessionHost } from "../session/host.js";
import type { AnyTool } from "../tools/define-tool.js";

/** What every session of one ACP connection shares. */
export interface AcpSessionContext {
  host: SessionHost;
  client: acp.AgentContext;
  /** The client's capabilities from `initialize`. */
  offered: acp.ClientCapabilities | undefined;
  /** Whether the client takes `usage_update`s (older clients reject each one). */
  sendsUsage: () => boolean;
  /** Tools besides the built-in ones (tests, later MCP). */
  extraTools: readonly AnyTool[];
  /** Diagnostics (stderr): a retry is said there too (README: "each retry is shown on stderr"). */
  log: (line: string) => void;
}

/** What the session requests need from the connection that answered `initialize`. */
export interface AcpConnectionState {
  /** Diagnostics (stderr); never stdout, which carries only protocol messages. */
  log: (line: string) => void;
  /** Tools besides the built-in ones. */
  extraTools: readonly AnyTool[];
  /** The client's capabilities from `initialize`. */
  offered: () => acp.ClientCapabilities | undefined;
  /** Whether `usage_update`s are still sent on this connection. */
  sendsUsage: () => boolean;
  /** Whether a `session/cancel` of the session was read and not handled yet (agent.ts). */
  cancelRead: (sessionId: string) => boolean;
}
