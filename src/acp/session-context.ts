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
