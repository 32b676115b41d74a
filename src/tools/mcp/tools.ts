/**
 * MCP tools as turnloop tools. A server's tool `t` of server `s` is offered as `s__t` (the
 * `<server>__<tool>` convention of Codex and Gemini CLI; `s-t`, the Copilot CLI's, with
 * {@link McpToolNaming} `copilot`), with the server's description and JSON
 * Schema; arguments are passed through as the model sent them (the server validates them and
 * answers bad ones with `isError`). Results keep their content types: text as text, images as
 * image content (for models that take them), resources as their text or a note, `isError` as an
 * error result whose text says the call failed (on every wire, as turnloop's own failures do). A
 * result longer than {@link MAX_RESULT_CHARACTERS} is cut to its head and tail like a command's
 * output, and the whole result is saved in the session folder (mode 0600, with
 * secrets redacted as in `events.jsonl`).
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/client";
import { z } from "zod";
import { errorCode, errorMessage, makeFolders } from "../../events/errors.js";
import type { JsonObject } from "../../events/events.js";
import { SecretStreamRedactor, type SecretValue } from "../../events/secrets.js";
import { markedTail } from "../command-output.js";
import { type AnyTool, defineTool, type ToolImage, type ToolResult } from "../define-tool.js";
import { errorResult, runGuarded } from "../tool-support.js";
import { type McpConnection, McpServerUnavailableError } from "./connection.js";

/**
 * The MCP client's `Request timed out` (its `REQUEST_TIMEOUT` error) in words naming the wait and
 * the setting that made it (README "MCP servers": a call waits 10 minutes unless the server's
 * `timeout`, in ms, says otherwise): `did not answer within 2 s (its \`timeout\` setting)`;
 * undefined for any other error.
 */
function timedOut(error: unknown, timeoutMs: number | undefined): Error | undefined {
  if (errorCode(error) !== "REQUEST_TIMEOUT") {
    return undefined;
  }
  const words =
    timeoutMs === undefined
      ? "did not answer within 10 min (the default: set `timeout` on the server, in ms, to change it)"
      : `did not answer within ${timeoutMs / 1000} s (its \`timeout\` setting)`;
  return new Error(words, { cause: error });
}

/** Characters of a result the model sees at most; the same cut as a command's output. */
export const MAX_RESULT_CHARACTERS = 30_000;
/** Provider tool names: `^[A-Za-z0-9_-]{1,64}$` (OpenAI's rule, the strictest of the APIs). */
const MAX_TOOL_NAME = 64;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * How MCP tools are named to the model: `turnloop` = `<server>__<tool>`; `copilot` =
 * `<server>-<tool>`, as the Copilot CLI names them (the Copilot SDK's snapshot
 * `mcp_and_agents/should_pass_literal_env_values_to_mcp_server_subprocess`: `env-echo-get_env`).
 */
export type McpToolNaming = "turnloop" | "copilot";

/**
 * The name the model calls: `<server>__<tool>` (or `<server>-<tool>`, see {@link McpToolNaming}),
 * characters outside `[A-Za-z0-9_-]` replaced by `_`, and names past 64 characters cut with a
 * short hash so they stay unique.
 */
export function qualifiedToolName(
  serverName: string,
  toolName: string,
  naming: McpToolNaming = "turnloop",
): string {
  const separator = naming === "copilot" ? "-" : "__";
  const name = `${serverName}${separator}${toolName}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_TOOL_NAME) {
    return name;
  }
  const hash = process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(`${serverName}\u0000${toolName}`)
    .digest("hex");
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash.slice(0, 8)}`;
}

/**
 * Whether `name` may be the name {@link qualifiedToolName} gives a tool of server `serverName`:
 * it starts with the server's prefix (`<server>__`), or it was cut to fit and its first
 * characters are those of that prefix (a server name of 54 characters or more leaves no room
 * for the whole prefix before the hash).
 */
export function namesToolOf(
  name: string,
  serverName: string,
  naming: McpToolNaming = "turnloop",
): boolean {
  const separator = naming === "copilot" ? "-" : "__";
  const prefix = `${serverName}${separator}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length > prefix.length && name.startsWith(prefix)) {
    return true;
  }
  const kept = MAX_TOOL_NAME - 9;
  return (
    name.length === MAX_TOOL_NAME &&
    prefix.length > kept &&
    /^_[0-9a-f]{8}$/.test(name.slice(kept)) &&
    name.slice(0, kept) === prefix.slice(0, kept)
  );
}

/**
 * The tool `toolName` names of `connection`, a server not connected ({@link namesToolOf} says the
 * name is one of its): the tool it listed before it stopped, else one named by what follows the
 * server's prefix, with no arguments of its own. Titled as {@link mcpTool} titles every call
 * (`server: tool`); run, it answers why the server is unavailable.
 */
export function unavailableServerTool(
  connection: McpConnection,
  toolName: string,
  naming: McpToolNaming = "turnloop",
): AnyTool {
  const listed = connection.tools.find(
    (tool) => qualifiedToolName(connection.name, tool.name, naming) === toolName,
  );
  const prefix = qualifiedToolName(connection.name, "", naming);
  const name = toolName.startsWith(prefix) ? toolName.slice(prefix.length) : toolName;
  return mcpTool(connection, listed ?? { name, inputSchema: { type: "object" } }, naming, toolName);
}

/**
 * `name` made unique among `taken`: `<name>_2`, `<name>_3` … (cut to stay within 64 characters),
 * the first of them not taken. Still a name {@link namesToolOf} gives to the same server.
 */
export function uniqueToolName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) {
    return name;
  }
  for (let count = 2; ; count++) {
    const suffix = `_${count}`;
    const candidate = `${name.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) {
      return candidate;
    }
  }
}

/**
 * The turnloop tool for one tool of a connected server, named as `naming` says, or `name` when
 * given (a name made unique, servers.ts).
 */
export function mcpTool(
  connection: McpConnection,
  tool: McpTool,
  naming: McpToolNaming = "turnloop",
  name = qualifiedToolName(connection.name, tool.name, naming),
): AnyTool {
  const { $schema: _schema, ...schema } = tool.inputSchema as JsonObject;
  const title = tool.annotations?.title ?? tool.title ?? tool.name;
  return defineTool({
    name,
    description: tool.description ?? title,
    // Any object passes; the model sees the server's own schema (zod copies `meta` into it).
    input: z.looseObject({}).meta(schema) as unknown as z.ZodType<JsonObject>,
    kind: "other",
    mcp: {
      serverName: connection.name,
      toolName: tool.name,
      qualifiedName: qualifiedToolName(connection.name, tool.name, naming),
    },
    scope: () => ({ title: `${connection.name}: ${title}`, paths: [] }),
    execute: (input, context) =>
      runGuarded(what(connection, tool), context.signal, async () => {
        const result = await connection
          .callTool(tool.name, input, context.signal)
          .catch((error: unknown) => {
            // Said in full already: the server stopped (or failed to start), and why.
            if (error instanceof McpServerUnavailableError) {
              return error.message;
            }
            throw timedOut(error, connection.config.timeoutMs) ?? error;
          });
        if (typeof result === "string") {
          return errorResult(result);
        }
        const shown = await toToolResult(result, {
          path: join(context.sessionDirectory, "mcp-results", `${context.toolCallId}.json`),
          secrets: context.secrets,
        });
        return shown.isError ? { ...shown, content: failedText(connection, tool, shown) } : shown;
      }),
  });
}

/** How a call of `tool` is named in its results: `MCP tool <server>/<tool>`. */
function what(connection: McpConnection, tool: McpTool): string {
  return `MCP tool ${connection.name}/${tool.name}`;
}

/**
 * The text of a result the server marked `isError`, said failed as a call that threw is
 * (`runGuarded`: `MCP tool s/t failed: <message>`): only Anthropic's `tool_result` has a flag for
 * it (`is_error`), while OpenAI Chat's `tool` message and Responses' `function_call_output` carry
 * text alone, where the server's own words ("the widget is broken") read like a success.
 */
function failedText(connection: McpConnection, tool: McpTool, shown: ToolResult): string {
  return shown.content === ""
    ? `${what(connection, tool)} failed, with no message.`
    : `${what(connection, tool)} failed: ${shown.content}`;
}

/**
 * Maps a `tools/call` result to what the model sees (see the module comment).
 * @param save where the whole result goes when it is too long, and the values redacted in it.
 */
export async function toToolResult(result: CallToolResult, save: SaveTarget): Promise<ToolResult> {
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        if (IMAGE_TYPES.has(block.mimeType)) {
          images.push({ mimeType: block.mimeType, data: block.data });
          texts.push(`[image: ${block.mimeType}]`);
        } else {
          texts.push(`[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`);
        }
        break;
      case "audio":
        texts.push(`[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`);
        break;
      case "resource_link":
        texts.push(`[resource: ${block.name} ${block.uri}]`);
        break;
      case "resource": {
        const { resource } = block;
        texts.push(
          "text" in resource && typeof resource.text === "string"
            ? `[resource: ${resource.uri}]\n${resource.text}`
            : `[resource: ${resource.uri}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}, binary, not shown]`,
        );
        break;
      }
    }
  }
  if (texts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  const content = await cutToLimit(texts.join("\n"), result, save);
  return {
    content,
    isError: result.isError === true,
    ...(images.length === 0 ? {} : { images }),
  };
}

/** Where a result too long to show is saved: the file, and the values replaced in it. */
export interface SaveTarget {
  path: string;
  /** The session host's secrets (events/secrets.ts). */
  secrets: readonly SecretValue[];
}

async function cutToLimit(text: string, result: CallToolResult, save: SaveTarget): Promise<string> {
  if (text.length <= MAX_RESULT_CHARACTERS) {
    return text;
  }
  const savePath = save.path;
  let where = `the whole result is saved to ${savePath}`;
  try {
    await makeFolders(join(savePath, ".."), 0o700);
    // Secrets are replaced as in events.jsonl (events/secrets.ts), in their JSON-escaped form.
    const secrets = save.secrets.map(({ name, value }) => ({
      name,
      value: JSON.stringify(value).slice(1, -1),
    }));
    const redactor = new SecretStreamRedactor(secrets);
    const bytes = redactor.push(Buffer.from(`${JSON.stringify(result)}\n`));
    await writeFile(savePath, Buffer.concat([bytes, redactor.end()]), { mode: 0o600 });
  } catch (error) {
    where = `the whole result could not be saved: ${errorMessage(error)}`;
  }
  const head = text.slice(0, Math.floor(MAX_RESULT_CHARACTERS * 0.4));
  const tail = text.slice(-(MAX_RESULT_CHARACTERS - head.length));
  const omitted = text.length - head.length - tail.length;
  const inside = text[text.length - tail.length - 1] !== "\n";
  return `${head}\n[… ${omitted} characters omitted; ${where}]\n${markedTail(tail, inside)}`;
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}
