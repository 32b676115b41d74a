import * as acp from "@agentclientprotocol/sdk";
import type { ClientCapabilities } from "../tools/define-tool.js";

/** What the tools' client access needs from the ACP connection and the session. */
export interface AcpClientAccess {
  client: acp.AgentContext;
  sessionId: string;
  /** What the client offered in `initialize`. */
  offered: acp.ClientCapabilities | undefined;
}

/**
 * The tools' {@link ClientCapabilities} over ACP v1 client methods, with only what the client
 * offered in `initialize` (ACP v1 initialization: omitted capabilities are unsupported):
 * `fs/read_text_file`, `fs/write_text_file` (so edits land in the editor's buffers).
 * `undefined` when the client offered neither. (Its `terminal/*` is a command runner:
 * `client-terminal-runner.ts`.)
 */
export function acpClientCapabilities(access: AcpClientAccess): ClientCapabilities | undefined {
  const { client, sessionId, offered } = access;
  const capabilities: ClientCapabilities = {};
  if (offered?.fs?.readTextFile === true) {
    capabilities.readTextFile = async (path, signal, lines) => {
      const response = await client.request(
        acp.methods.client.fs.readTextFile,
        { sessionId, path, ...lines },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      return response.content;
    };
  }
  if (offered?.fs?.writeTextFile === true) {
    capabilities.writeTextFile = async (path, content, signal) => {
      await client.request(
        acp.methods.client.fs.writeTextFile,
        { sessionId, path, content },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    };
  }
  return Object.keys(capabilities).length === 0 ? undefined : capabilities;
}
