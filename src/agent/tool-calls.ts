import { z } from "zod";
import { abortFinished, abortReason, errorMessage, whenAborted } from "../events/errors.js";
import type { JsonObject, ToolErrorCode, ToolRequest } from "../events/events.js";
import type {
  AnyTool,
  ToolCheck,
  ToolContext,
  ToolEffect,
  ToolResult,
} from "../tools/define-tool.js";
import { invalidArgumentsMessage } from "./invalid-arguments.js";
import type {
  ExecuteOptions,
  ToolCallContext,
  ToolCallOutcome,
  UnavailableToolLookup,
} from "./tool-call-types.js";

export type * from "./tool-call-types.js";

const MAX_ECHOED_ARGUMENTS = 500;

/**
 * Runs the tool calls of one assistant message and emits, for each, `tool.execution_start`,
 * `tool.execution_running` (ephemeral) once the tool itself runs (after the permission gate), and
 * exactly one `tool.execution_complete`, whatever happens (case 01). Calls run in parallel when
 * every runnable call in the batch is read-only or `concurrent`, otherwise in order. Calls that cannot run
 * (unknown tool, bad arguments: cases 12, 13) get an error result the model can act on; calls
 * not started when `signal` aborts get an `interrupted` result. Never throws.
 */
export async function executeToolCalls(
  context: ToolCallContext,
  toolCalls: readonly ToolRequest[],
  options: ExecuteOptions = {},
): Promise<ToolCallOutcome[]> {
  const adjust = options.adjust ?? ((outcome: ToolCallOutcome) => outcome);
  const prepared = toolCalls.map((toolCall): PreparedCall => {
    if (options.refuse !== undefined) {
      return { toolCall, failure: options.refuse };
    }
    return prepare(context, toolCall);
  });
  const parallel = prepared.every(
    (call) => call.tool === undefined || !call.tool.mutates || call.tool.concurrent === true,
  );
  const runOne = (call: PreparedCall) => runCall(context, call, adjust);
  if (parallel) {
    return Promise.all(prepared.map(runOne));
  }
  const outcomes: ToolCallOutcome[] = [];
  for (const call of prepared) {
    outcomes.push(await runOne(call));
  }
  return outcomes;
}

/** Runs one prepared call between its `tool.execution_start` and `tool.execution_complete`. */
async function runCall(
  context: ToolCallContext,
  call: PreparedCall,
  adjust: NonNullable<ExecuteOptions["adjust"]>,
): Promise<ToolCallOutcome> {
  // Once per call, with the arguments it runs with (a hook may rewrite them at the gate).
  let started = false;
  const start: StartCall = (toolArguments, mcp = call.tool?.mcp) => {
    if (started) {
      return;
    }
    started = true;
    context.emit({
      type: "tool.execution_start",
      data: {
        toolCallId: call.toolCall.toolCallId,
        toolName: call.toolCall.name,
        arguments: toolArguments,
        ...(mcp === undefined
          ? {}
          : {
              mcpServerName: mcp.serverName,
              ...(mcp.toolName === undefined ? {} : { mcpToolName: mcp.toolName }),
            }),
      },
    });
  };
  const outcome = await adjust(await settle(context, call, start));
  context.emit({
    type: "tool.execution_complete",
    data: {
      toolCallId: outcome.toolCall.toolCallId,
      toolName: outcome.toolCall.name,
      success: !outcome.isError,
      result: {
        content: outcome.content,
        ...(outcome.images === undefined ? {} : { images: outcome.images }),
      },
      ...(outcome.errorCode === undefined
        ? {}
        : { error: { message: outcome.errorMessage ?? outcome.content, code: outcome.errorCode } }),
      ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
      ...(outcome.knownFile === undefined ? {} : { knownFile: outcome.knownFile }),
      ...(outcome.fileChange === undefined ? {} : { fileChange: outcome.fileChange }),
    },
  });
  return outcome;
}

/**
 * Emits the call's `tool.execution_start` (once; later calls do nothing), with the arguments it
 * runs with and, for an MCP server's tool, the server (and the tool's name there, when known).
 */
type StartCall = (
  toolArguments: JsonObject,
  mcp?: { serverName: string; toolName?: string },
) => void;

type PreparedCall =
  | { toolCall: ToolRequest; tool: AnyTool; input: unknown; failure?: undefined }
  | { toolCall: ToolRequest; tool?: AnyTool; failure: { code: ToolErrorCode; message: string } };

function prepare(context: ToolCallContext, toolCall: ToolRequest): PreparedCall {
  const tool = context.tools.get(toolCall.name);
  if (tool === undefined) {
    // Copilot's wording, which models trained on it read (the recordings in ../shared/transcripts).
    const available = [...context.tools.keys()];
    const message =
      available.length === 0
        ? `Tool '${toolCall.name}' does not exist.`
        : `Tool '${toolCall.name}' does not exist. Available tools that can be called are ${available.join(", ")}.`;
    return { toolCall, failure: { code: "unknown_tool", message } };
  }
  if (toolCall.argumentsError === "truncated") {
    const message = `Not executed: the reply hit the output token limit before the arguments of '${toolCall.name}' were complete (received ${echo(toolCall.rawArguments)}). Split the work into smaller steps.`;
    return { toolCall, tool, failure: { code: "truncated_arguments", message } };
  }
  if (toolCall.argumentsError === "invalid_json") {
    const echoed = echo(toolCall.rawArguments);
    const message = invalidArgumentsMessage(toolCall.name, toolCall.rawArguments, echoed);
    return { toolCall, tool, failure: { code: "invalid_arguments", message } };
  }
  const parsed = tool.input.safeParse(toolCall.arguments);
  if (!parsed.success) {
    // One line an issue, its field on it ("✖ Invalid input: expected number … → at timeout"):
    // a failed call's line on the terminal shows the message's first line. The arrow is escaped
    // in the expression: esbuild cannot escape it there, and one character outside ASCII keeps
    // the whole bundled script in memory at two bytes a character (bench/notes/start21.md).
    const issues = z.prettifyError(parsed.error).replace(/\n\s*\u2192/g, " →");
    const message = `Invalid arguments for '${toolCall.name}': ${issues} (received ${echo(JSON.stringify(toolCall.arguments))}).`;
    return { toolCall, tool, failure: { code: "invalid_arguments", message } };
  }
  return { toolCall, tool, input: parsed.data };
}

/** Authorizes and runs one call; `start` is called before the call runs. */
async function settle(
  context: ToolCallContext,
  call: PreparedCall,
  start: StartCall,
): Promise<ToolCallOutcome> {
  const { toolCall } = call;
  if (call.failure?.code === "unknown_tool" && context.unavailableTool !== undefined) {
    return settleUnknown(context, call, start, context.unavailableTool);
  }
  if (call.failure !== undefined) {
    return failedCall(context, toolCall, call.failure, start);
  }
  if (context.signal.aborted) {
    start(toolCall.arguments);
    return notStarted(toolCall);
  }
  const { tool, input } = call;
  const answer = await context.authorize({
    tool,
    input,
    toolCall,
    signal: context.signal,
    start,
    check: (checkedInput, hidden) => checkCall(context, tool, checkedInput, toolCall, hidden),
  });
  start(answer.allowed ? answer.arguments : toolCall.arguments);
  if (context.signal.aborted) {
    // Cancelled before or at the permission question: the tool never started.
    return notStarted(toolCall);
  }
  if (!answer.allowed) {
    if (answer.failed === true) {
      return { toolCall, content: answer.reason, isError: true, errorCode: "failed" };
    }
    const content = answer.content ?? `Permission denied for '${toolCall.name}': ${answer.reason}`;
    return { toolCall, content, isError: true, errorCode: answer.rejected ? "rejected" : "denied" };
  }
  const result = await runTool(context, call.tool, answer.input, toolCall, answer.hidden);
  // A file the call read or wrote stays known, even when the prompt was cancelled meanwhile.
  const known = result.knownFile === undefined ? {} : { knownFile: result.knownFile };
  if (context.signal.aborted) {
    const content = `${result.content}\n[${abortReason(context.signal)}]`.trimStart();
    return { toolCall, content, isError: true, errorCode: "cancelled", ...known };
  }
  return {
    toolCall,
    content: result.content,
    isError: result.isError,
    ...(result.isError ? { errorCode: result.errorCode ?? ("failed" as const) } : {}),
    ...(result.isError && result.errorMessage !== undefined
      ? { errorMessage: result.errorMessage }
      : {}),
    ...(result.images === undefined || result.images.length === 0 ? {} : { images: result.images }),
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    ...effectsOf(result),
    ...known,
    ...(result.isError || result.fileChange === undefined ? {} : { fileChange: result.fileChange }),
  };
}

/**
 * A call of a tool not offered, in a session with a lookup (MCP servers; a session without one
 * answers at once, as it always did): run as any call when the lookup finds the tool now, answered
 * with the lookup's words when it says why the tool is unavailable (code `failed`), else with
 * "does not exist" after `onCallNotRun`.
 */
async function settleUnknown(
  context: ToolCallContext,
  call: PreparedCall,
  start: StartCall,
  lookup: UnavailableToolLookup,
): Promise<ToolCallOutcome> {
  const { toolCall } = call;
  // A call that waits (for an MCP server still starting) starts now, and says what it waits on.
  const found = await lookup(toolCall.name, context.signal, ({ serverName, message }) => {
    start(toolCall.arguments, { serverName });
    const { toolCallId } = toolCall;
    context.emit({
      type: "tool.execution_progress",
      data: { toolCallId, progressMessage: message },
    });
  });
  if (context.signal.aborted) {
    start(toolCall.arguments);
    return notStarted(toolCall);
  }
  if (typeof found === "object" && found.name === toolCall.name) {
    return settle(
      context,
      prepare({ ...context, tools: new Map([[found.name, found]]) }, toolCall),
      start,
    );
  }
  const failure =
    typeof found === "string"
      ? { code: "failed" as const, message: found }
      : { code: "unknown_tool" as const, message: call.failure?.message ?? "" };
  return failedCall(context, toolCall, failure, start);
}

/**
 * A call answered with an error without running; the loop's callback (an SDK app's hooks) is told
 * first, with the words the model reads.
 */
async function failedCall(
  context: ToolCallContext,
  toolCall: ToolRequest,
  { code, message }: { code: ToolErrorCode; message: string },
  start: StartCall,
): Promise<ToolCallOutcome> {
  const effects =
    context.onCallNotRun !== undefined
      ? await context.onCallNotRun({
          code,
          toolCall,
          message,
          signal: context.signal,
          start: () => start(toolCall.arguments),
        })
      : [];
  start(toolCall.arguments);
  const failed = { toolCall, content: message, isError: true, errorCode: code };
  return effects.length === 0 ? failed : { ...failed, effects };
}

/** The effects a result carries on (see {@link ToolResult.effects}): an error keeps its follow-ups. */
function effectsOf(result: ToolResult): { effects?: ToolEffect[] } {
  const effects = result.isError
    ? result.effects?.filter((effect) => effect.type === "follow_up")
    : result.effects;
  return effects === undefined || effects.length === 0 ? {} : { effects };
}

async function runTool(
  context: ToolCallContext,
  tool: AnyTool,
  input: unknown,
  toolCall: ToolRequest,
  hidden: ((path: string) => boolean) | undefined,
): Promise<ToolResult> {
  const controller = new AbortController();
  const signal = controller.signal;
  const stopFollowing = whenAborted(context.signal, () => controller.abort(context.signal.reason));
  try {
    // Durable before a tool that can change anything starts; written is enough for one that
    // cannot (its call and result are synced at the turn's end: README, commit points).
    await (tool.changesNothing === true
      ? (context.recorded ?? context.checkpoint)
      : context.checkpoint)?.();
    context.emit({ type: "tool.execution_running", data: { toolCallId: toolCall.toolCallId } });
    return await tool.execute(input, toolContext(context, toolCall, signal, hidden));
  } catch (error) {
    const message = errorMessage(error);
    return { content: `Tool '${tool.name}' failed: ${message}`, isError: true };
  } finally {
    stopFollowing();
    abortFinished(controller);
  }
}

/**
 * {@link AnyTool.check} of a call at its permission question, with the signal of the prompt:
 * `ready` (nothing checked) for a tool without one, and when the check throws (the tool's own
 * run then reports the failure).
 */
async function checkCall(
  context: ToolCallContext,
  tool: AnyTool,
  input: unknown,
  toolCall: ToolRequest,
  hidden: ((path: string) => boolean) | undefined,
): Promise<ToolCheck> {
  if (tool.check === undefined) {
    return { kind: "ready" };
  }
  try {
    return await tool.check(input, toolContext(context, toolCall, context.signal, hidden));
  } catch {
    return { kind: "ready" };
  }
}

/** What a tool gets for `toolCall` besides its arguments. */
function toolContext(
  context: ToolCallContext,
  toolCall: ToolRequest,
  signal: AbortSignal,
  hidden: ((path: string) => boolean) | undefined,
): ToolContext {
  return {
    cwd: context.cwd,
    sessionDirectory: context.sessionDirectory,
    toolCallId: toolCall.toolCallId,
    signal,
    ...(context.client === undefined ? {} : { client: context.client }),
    ...(hidden === undefined ? {} : { hidden }),
    commands: context.commands,
    secrets: context.secrets,
    knownFiles: context.knownFiles,
    onPartialResult: (partialOutput) =>
      context.emit({
        type: "tool.execution_partial_result",
        data: { toolCallId: toolCall.toolCallId, partialOutput },
      }),
  };
}

/** The result of a call that never ran to completion because the prompt was cancelled or the process died. */
export function interrupted(toolCall: ToolRequest): ToolCallOutcome {
  return {
    toolCall,
    content:
      "Interrupted: the tool call was cancelled before it completed; it may have partly run.",
    isError: true,
    errorCode: "interrupted",
  };
}

/**
 * The result of a call the prompt's cancel, or the end of the process running it, stopped before
 * the tool started (at its question, say).
 */
export function notStarted(toolCall: ToolRequest): ToolCallOutcome {
  return {
    toolCall,
    content: "Not run: the prompt was cancelled before the tool call started.",
    isError: true,
    errorCode: "interrupted",
  };
}

function echo(text: string | undefined): string {
  const value = text ?? "";
  return value.length > MAX_ECHOED_ARGUMENTS
    ? `${value.slice(0, MAX_ECHOED_ARGUMENTS)}… (${value.length} characters)`
    : value;
}
