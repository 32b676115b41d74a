/**
 * What a stdio MCP server printed first, and what that says of a server whose `initialize`
 * failed. Over stdio a server writes nothing to stdout but MCP messages (MCP specification
 * 2025-06-18, Basic › Transports › stdio: "The server MUST NOT write anything to its stdout that
 * is not a valid MCP message"), and its first answer is the one to `initialize`: a program that
 * is no MCP server shows it there (`cat` prints the request back; another prints text; a
 * JSON-RPC server that knows no MCP answers with an error).
 */

import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** Characters of the first output shown in an error report; the rest becomes `…`. */
const SHOWN_LENGTH = 120;

/** The first line a server printed on stdout: a JSON-RPC message, or text that is none. */
export type FirstOutput =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "text"; text: string };

/**
 * Why a server whose `initialize` failed with `failure` is no MCP server, judged from `first`
 * (undefined: it printed nothing on stdout): its first line is no JSON-RPC message, a JSON-RPC
 * error answer, or the `initialize` request sent to it, printed back (then `failure` is the
 * client's own refusal of that request, and is not repeated). `undefined` otherwise (it printed
 * nothing, or what an MCP server may: its result, a log notification), so that a real server
 * that crashed or timed out is reported by that failure alone.
 * @returns e.g. `did not answer as an MCP server: initialize failed (Method not found); what it
 * printed first: {"jsonrpc":"2.0",…}`, with at most {@link SHOWN_LENGTH} characters of output.
 */
export function notAnMcpServer(
  failure: string,
  first: FirstOutput | undefined,
): string | undefined {
  if (first === undefined) {
    return undefined;
  }
  if (first.kind === "text") {
    return `did not answer as an MCP server: initialize failed (${failure}); what it printed first: ${shown(first.text)}`;
  }
  const message = first.message;
  const printed = shown(JSON.stringify(message));
  if ("method" in message && message.method === "initialize") {
    return `did not answer as an MCP server: it printed back the initialize request it was sent: ${printed}`;
  }
  if ("error" in message) {
    return `did not answer as an MCP server: initialize failed (${failure}); what it printed first: ${printed}`;
  }
  return undefined;
}

/** `text` cut to {@link SHOWN_LENGTH} characters (`…` marks a cut); an empty line said so. */
function shown(text: string): string {
  if (text === "") {
    return "an empty line";
  }
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}…` : text;
}
