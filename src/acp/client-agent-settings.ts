import type * as acp from "@agentclientprotocol/sdk";
import type { ModelConfiguration } from "../llm/models.js";
import { permissionModeOf } from "../session/sandbox-setup.js";
import type { Session, SessionAgentSettings } from "../session/session.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import { acpClientCapabilities } from "./client-capabilities.js";
import { clientTerminalRunner } from "./client-terminal-runner.js";
import type { ModeId } from "./modes.js";
import { acpPermissionAsker } from "./permissions.js";
import type { AcpSessionContext } from "./session-context.js";
import type { UpdateMapper } from "./updates.js";

/** What one ACP session holds that its next turn's agent settings read. */
export interface ClientTurnState {
  session: Session;
  configuration: ModelConfiguration;
  /** Read at each permission decision, so switching to auto while a turn runs applies at once. */
  mode: () => ModeId;
  sandbox: SandboxPolicy | undefined;
  folders: readonly string[];
  mapper: UpdateMapper;
  /** Sends a `session/update` of this session. */
  send: (update: acp.SessionUpdate) => void;
  /** Cancels the running prompt (the client cancelled a permission request). */
  cancelPrompt: () => void;
}

/**
 * The next turn's agent settings for an ACP session: the model, the mode, and how the client is
 * asked (ACP v1 `session/request_permission`) and used: its fs methods and, when it offers them,
 * its terminals for commands (ACP v1 `terminal/*`).
 */
export function clientAgentSettings(
  context: AcpSessionContext,
  state: ClientTurnState,
): SessionAgentSettings {
  const { host, client, offered, extraTools } = context;
  const sessionId = state.session.id;
  const capabilities = acpClientCapabilities({ client, sessionId, offered });
  const terminalRunner = clientTerminalRunner({
    client,
    sessionId,
    offered,
    onTerminal: (toolCallId, terminalId) =>
      state.send(state.mapper.attachTerminal(toolCallId, terminalId)),
  });
  return host.agentSettings(state.session, state.configuration, {
    autopilot: state.mode() === "autopilot",
    ask: acpPermissionAsker({
      client,
      sessionId,
      describe: (toolCallId) => state.mapper.describe(toolCallId),
      cancelPrompt: state.cancelPrompt,
    }),
    permissionMode: () => permissionModeOf(state.mode(), host.configOf(state.session)),
    ...(state.sandbox === undefined ? {} : { sandboxPolicy: state.sandbox }),
    folders: state.folders,
    extraTools,
    ...(capabilities === undefined ? {} : { client: capabilities }),
    ...(terminalRunner === undefined ? {} : { runner: terminalRunner }),
  });
}
