/**
 * ACP v1 initialization: what turnloop answers to `initialize`, and what it reads of the client's
 * request (ACP `initialize`, protocol version 1). No value of the ACP SDK is imported (types
 * only): src/acp/start.ts answers `initialize` before the SDK loads.
 */

import type * as acp from "@agentclientprotocol/sdk";
import { PRODUCER_VERSION } from "../session/version.js";

/** The ACP protocol version turnloop speaks: 1, the SDK 2.4.0's `PROTOCOL_VERSION`. */
export const PROTOCOL_VERSION = 1;

/**
 * The `initialize` answer: protocol version 1, turnloop's capabilities (load, list, resume,
 * close, delete, additional directories; images and embedded context in prompts; MCP over stdio,
 * HTTP and SSE) and `authMethods`.
 */
export function initializeResponse(authMethods: acp.AuthMethod[]): acp.InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      // Images go to the model as image input where its API takes them (a note elsewhere);
      // embedded resources become context text (image blobs, images).
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      // stdio always; Streamable HTTP and the older HTTP+SSE through the MCP SDK's transports.
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        delete: {},
        additionalDirectories: {},
      },
    },
    authMethods,
    agentInfo: { name: "turnloop", title: "turnloop", version: PRODUCER_VERSION },
  };
}

/**
 * Whether a client knows `usage_update`, which became a stable `session/update` late: clients on
 * older SDKs (0.12's example client) reject each one as invalid params and log it. Both speak
 * protocol 1, so the sign is the rest of `initialize`: a `clientInfo` (sent by current clients:
 * Zed, acpx, the JetBrains plugin) or a client capability of the newer schema (`auth.terminal`,
 * `elicitation`, `session`; the SDK's parse fills in `auth: {terminal: false}` when absent).
 */
export function understandsUsageUpdates(params: acp.InitializeRequest): boolean {
  const capabilities = params.clientCapabilities ?? {};
  return (
    params.clientInfo != null ||
    capabilities.auth?.terminal === true ||
    capabilities.elicitation != null ||
    capabilities.session != null
  );
}
