/**
 * The HTTP transports of a remote (`http`, `sse`) MCP server: the client library's, given the
 * server's URL without credentials and its headers (a URL's `user:pass@` sent as HTTP Basic
 * `Authorization`: {@link withCredentialsAsHeader}).
 */

import type { Transport } from "@modelcontextprotocol/client";
import type { McpRemoteServerConfig } from "./config.js";

/** The MCP client library (loaded with the first connection: connection.ts). */
type ClientLibrary = typeof import("@modelcontextprotocol/client");

/** The transport of `type` for `config`'s server. */
export function remoteTransport(
  library: ClientLibrary,
  config: McpRemoteServerConfig,
  type: "http" | "sse",
): Transport {
  compileWasmWithBaselineOnly();
  const { url, headers } = withCredentialsAsHeader(config.url, config.headers ?? {});
  const requestInit = { headers };
  return type === "sse"
    ? new library.SSEClientTransport(url, { requestInit })
    : new library.StreamableHTTPClientTransport(url, { requestInit });
}

/**
 * A server URL's user and password (`https://user:pass@host/mcp`) as an HTTP Basic
 * `Authorization` header (RFC 7617: base64 of `user:pass`, each percent-decoded), taken out of the
 * URL: `fetch` refuses a URL with credentials (Fetch standard, "Request" constructor), so such a
 * server never connected. A configured `Authorization` header (any case) wins over the URL's
 * credentials, which are then dropped all the same.
 */
export function withCredentialsAsHeader(
  address: string,
  headers: Readonly<Record<string, string>>,
): { url: URL; headers: Record<string, string> } {
  const url = new URL(address);
  if (url.username === "" && url.password === "") {
    return { url, headers: { ...headers } };
  }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  const configured = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
  return {
    url,
    headers: configured
      ? { ...headers }
      : { ...headers, Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
  };
}

let baselineOnly = false;

/**
 * The MCP client's HTTP transports are the one user of Node's global `fetch` (undici) in turnloop:
 * model requests go over `node:http` (src/llm/http-fetch.ts). undici parses HTTP with a
 * WebAssembly module that V8 optimises in the background, and the process waits for that work at
 * exit (about 130 ms and 25 MiB per run, bench/RESULTS.md); the baseline compiler alone is plenty
 * for an MCP server's replies. So V8's `--liftoff-only` is set here, before the first `fetch`, and
 * only when a remote server is configured: any V8 flag set at run time makes Node compile each of
 * its own modules loaded after it from source instead of taking its built-in code cache
 * (src/cli/v8-flags.ts), so a run without a remote server sets none.
 */
function compileWasmWithBaselineOnly(): void {
  if (!baselineOnly) {
    baselineOnly = true;
    process.getBuiltinModule("node:v8").setFlagsFromString("--liftoff-only");
  }
}
