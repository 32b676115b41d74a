/**
 * The modules an MCP connection needs (connection.ts), loaded by the first connection only: the
 * client library (about 1 MiB of modules with its packages), our stdio transport, the words of
 * remote failures, the remote transports and the check of a tool list.
 */

/** The modules a connection needs, loaded once, by the first connection. */
export interface ClientModules {
  client: typeof import("@modelcontextprotocol/client");
  transport: typeof import("./stdio-transport.js");
  /** The words of a remote server's failures. */
  remote: typeof import("./remote-failure.js");
  /** The HTTP transports of a remote server. */
  remoteTransport: typeof import("./remote-transport.js");
  /** A server's tool list, checked one tool at a time. */
  toolList: typeof import("./tool-list.js");
}

let clientModules: Promise<ClientModules> | undefined;

/** Loads the MCP client library and our stdio transport (once per process). */
export function loadClientModules(): Promise<ClientModules> {
  clientModules ??= Promise.all([
    import("@modelcontextprotocol/client"),
    import("./stdio-transport.js"),
    import("./remote-failure.js"),
    import("./remote-transport.js"),
    import("./tool-list.js"),
  ]).then(([client, transport, remote, remoteTransport, toolList]) => ({
    client,
    transport,
    remote,
    remoteTransport,
    toolList,
  }));
  return clientModules;
}
