/** The content of a finished call's `tool_call_update` (ACP v1 tool-calls). */

import { resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEventData } from "../events/events.js";
import { commandEnding, type ToolCall } from "../session/session-model/session-model.js";
import { stateWords } from "../session/session-model/tool-call.js";

type ToolCallContent = acp.ToolCallContent;

/**
 * The terminal, else an edit's diff, else the output as the session model reads it (a command's
 * output without the `<exited …>` line the model reads, then `exit code N` or `killed by SIGNAL`
 * when it did not exit 0); then the images the tool returned.
 */
export function resultContent(
  data: SessionEventData["tool.execution_complete"],
  call: ToolCall | undefined,
  terminalId: string | undefined,
  cwd: string,
): ToolCallContent[] {
  const text = call === undefined ? data.result.content : shownOutput(call);
  const diff =
    call?.status === "completed" && call.messageId !== undefined ? editDiff(call, cwd) : undefined;
  const content: ToolCallContent[] =
    terminalId !== undefined
      ? [{ type: "terminal", terminalId }]
      : diff !== undefined
        ? diffContent(diff)
        : text === ""
          ? []
          : [textContent(text)];
  // Images the tool gave the model (e.g. `view` of a PNG) are shown to the user too.
  for (const image of data.result.images ?? []) {
    content.push({
      type: "content",
      content: { type: "image", data: image.data, mimeType: image.mimeType },
    });
  }
  return content;
}

/**
 * An edit's diff; a file created empty has nothing to show in one (no line on either side), so a
 * text line says it.
 */
function diffContent(diff: ToolCallContent): ToolCallContent[] {
  const empty = diff.type === "diff" && diff.oldText == null && diff.newText === "";
  return empty ? [diff, textContent("(empty file)")] : [diff];
}

/** A finished call's output for the user: the session model's output, then how a command ended. */
function shownOutput(call: ToolCall): string {
  const output = (call.output ?? "").replace(/\s+$/, "");
  const ending = commandEnding(call);
  if (ending === undefined) {
    return output;
  }
  return output === "" ? ending : `${output}\n${ending}`;
}

/**
 * The `rawOutput` of a command run in the client's terminal (its content is the terminal): the
 * output as the session model reads it, and the exit code or signal when known.
 */
function terminalOutput(
  data: SessionEventData["tool.execution_complete"],
  call: ToolCall | undefined,
): { output: string; exitCode?: number; signal?: string } {
  if (call === undefined) {
    return { output: data.result.content };
  }
  return {
    output: call.output ?? "",
    ...(call.exitCode === undefined ? {} : { exitCode: call.exitCode }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  };
}

/**
 * A finished call's `rawOutput` (ACP's free-form field): a terminal's output, exit code and
 * signal ({@link terminalOutput}), else the result's `error` code; and for a call that did not
 * complete, the session model's words as `outcome` (session-model/tool-call.ts `stateWords`:
 * `failed (exit code 1)`, `timed out after 2 s`, `invalid arguments` …), ACP's `status` being
 * only `completed` or `failed`. Undefined when there is nothing to say.
 */
export function rawOutputOf(
  data: SessionEventData["tool.execution_complete"],
  call: ToolCall | undefined,
  terminalId: string | undefined,
): object | undefined {
  const fields =
    terminalId !== undefined
      ? terminalOutput(data, call)
      : data.error === undefined
        ? undefined
        : { error: data.error.code };
  if (call === undefined || call.status === "completed") {
    return fields;
  }
  return { ...fields, outcome: stateWords(call) };
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/**
 * The diff of an `edit {path, old_str, new_str}` or `create {path, file_text}` call, from its
 * arguments (ACP `diff` content: a new file has no `oldText`).
 */
function editDiff(call: ToolCall, cwd: string): ToolCallContent | undefined {
  const { path, old_str: oldText, new_str: newText, file_text: fileText } = call.arguments;
  if (typeof path !== "string") {
    return undefined;
  }
  const absolute = resolve(cwd, path);
  if (call.toolName === "edit" && typeof oldText === "string" && typeof newText === "string") {
    return { type: "diff", path: absolute, oldText, newText };
  }
  if (call.toolName === "create" && typeof fileText === "string") {
    return { type: "diff", path: absolute, oldText: null, newText: fileText };
  }
  return undefined;
}
