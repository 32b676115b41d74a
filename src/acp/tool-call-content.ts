/** The content of a finished call's `tool_call_update` (ACP v1 tool-calls). */

import type * as acp from "@agentclientprotocol/sdk";
import type { FileChange, SessionEventData } from "../events/events.js";
import { argumentText } from "../events/terminal-text.js";
import { commandEnding, type ToolCall } from "../session/session-model/session-model.js";
import { NOT_PERSISTED, stateWords } from "../session/session-model/tool-call.js";
import type { AnyTool } from "../tools/define-tool.js";

type ToolCallContent = acp.ToolCallContent;

/**
 * The terminal (then, for a command that did not exit 0, `exit code N` or `killed by SIGNAL` as
 * text: the terminal shows the output, and ACP v1 lets a call's content hold both, while an
 * editor that released the terminal shows no exit code of its own), else an edit's or a create's whole-file diff (when recorded: not for a file over
 * tools/file-change.ts `MAX_FILE_CHANGE_CHARACTERS`, nor in logs written before), else the output as the session model reads it (a command's
 * output without the `<exited …>` line the model reads, then `exit code N` or `killed by SIGNAL`
 * when it did not exit 0); then the images the tool returned; last, for a result the session log
 * refused (the session model's `resultNotPersisted`), a text saying so.
 */
function resultContent(
  data: SessionEventData["tool.execution_complete"],
  call: ToolCall | undefined,
  terminalId: string | undefined,
): ToolCallContent[] {
  const text = call === undefined ? data.result.content : shownOutput(call);
  const change = call?.status === "completed" ? call.fileChange : undefined;
  const diff = change === undefined ? undefined : changeDiff(change);
  const content: ToolCallContent[] =
    terminalId !== undefined
      ? terminalContent(terminalId, call)
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
  if (call?.resultNotPersisted === true) {
    content.push(textContent(`${NOT_PERSISTED.charAt(0).toUpperCase()}${NOT_PERSISTED.slice(1)}.`));
  }
  return content;
}

/**
 * The `tool_call_update` that ends a call (`call`: the session model's, when known; `terminalId`:
 * the client terminal its command ran in): {@link resultContent}, {@link rawOutputOf}, and
 * ACP v1's status, `completed` when the session model says so and the log kept the result, else
 * `failed` (v1 has no other final status): a result the log refused is lost to the session,
 * whose resume records the call interrupted, so the client shows what a replay will.
 */
export function finishedUpdate(
  data: SessionEventData["tool.execution_complete"],
  call: ToolCall | undefined,
  terminalId: string | undefined,
): acp.SessionUpdate {
  const kept = call?.status === "completed" && call.resultNotPersisted !== true;
  const rawOutput = rawOutputOf(data, call, terminalId);
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: data.toolCallId,
    status: kept ? "completed" : "failed",
    content: resultContent(data, call, terminalId),
    ...(rawOutput === undefined ? {} : { rawOutput }),
  };
}

/** A command run in the client's terminal: the terminal, then how it ended when not with 0. */
function terminalContent(terminalId: string, call: ToolCall | undefined): ToolCallContent[] {
  const ending = call === undefined ? undefined : commandEnding(call);
  const terminal: ToolCallContent = { type: "terminal", terminalId };
  return ending === undefined ? [terminal] : [terminal, textContent(ending)];
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
 * only `completed` or `failed`; and for a result the log refused, that outcome and
 * `resultNotPersisted: true`. Undefined when there is nothing to say.
 */
function rawOutputOf(
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
  if (call?.resultNotPersisted === true) {
    return { ...fields, outcome: stateWords(call), resultNotPersisted: true };
  }
  if (call === undefined || call.status === "completed") {
    return fields;
  }
  return { ...fields, outcome: stateWords(call) };
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/**
 * ACP `diff` content of a whole-file change (reference/acp.md, ToolCallContent: whole-file text,
 * `oldText` null for a new file): of a finished call (its recorded `fileChange`) or of one a
 * permission question asks about.
 */
export function changeDiff(change: FileChange): ToolCallContent {
  return { type: "diff", path: change.path, oldText: change.oldText, newText: change.newText };
}

/**
 * The title of a call's first `tool_call`, sent before its arguments are complete: an MCP tool's
 * (`server: tool`, tools/mcp/tools.ts) needs no arguments, so the call keeps one title from its
 * first update on (trial 38 F5); any other tool's name, until its arguments give its title.
 */
export function announcedTitle(toolName: string, tool: AnyTool | undefined, cwd: string): string {
  return tool?.mcp === undefined ? toolName : (tool.scope?.({}, cwd).title ?? toolName);
}

/**
 * A call's title or a permission option's name as an editor draws it: a command's control
 * characters shown as code points, never obeyed (events/terminal-text.ts `argumentText`; trial
 * r3s47: a `\r` drew a command's end over its start). `rawInput` keeps the exact arguments.
 */
export function callTitle(title: string): string {
  return argumentText(title);
}
