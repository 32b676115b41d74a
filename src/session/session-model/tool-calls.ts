/** The tool calls of a session and their transitions (state machine: tool-call.ts). */

import type { SessionEventData, ToolRequest } from "../../events/events.js";
import { isFinished, readResult, type ToolCall, type ToolCallStatus } from "./tool-call.js";

/** Why a call announced while streaming never ran (the reply ended without its arguments). */
export const ABANDONED_CALL_MESSAGE =
  "Not run: the reply ended before the call's arguments were complete.";

/** Tool calls in the order they were first seen, by `toolCallId`. */
export class ToolCalls {
  readonly all: ToolCall[] = [];
  private readonly byId = new Map<string, ToolCall>();
  /** Calls announced while streaming whose arguments are not complete yet. */
  private readonly announced = new Set<string>();

  get(toolCallId: string): ToolCall | undefined {
    return this.byId.get(toolCallId);
  }

  /** The call `toolCallId`, created `pending` when first seen. */
  call(toolCallId: string, toolName: string): ToolCall {
    let call = this.byId.get(toolCallId);
    if (call === undefined) {
      call = { toolCallId, toolName, arguments: {}, status: "pending", permissionWaitMs: 0 };
      this.byId.set(toolCallId, call);
      this.all.push(call);
    }
    return call;
  }

  /** `assistant.tool_call_start`: the model started writing the call. */
  announce(data: SessionEventData["assistant.tool_call_start"]): ToolCall {
    const call = this.call(data.toolCallId, data.toolName);
    call.messageId = data.messageId;
    if (call.status === "pending") {
      this.announced.add(data.toolCallId);
    }
    return call;
  }

  /** A reply's tool request: the call's arguments are complete. */
  request(request: ToolRequest, messageId: string): ToolCall {
    const call = this.call(request.toolCallId, request.name);
    this.announced.delete(request.toolCallId);
    call.toolName = request.name;
    call.arguments = request.arguments;
    call.messageId = messageId;
    if (request.rawArguments !== undefined) {
      call.rawArguments = request.rawArguments;
    }
    if (request.argumentsError !== undefined) {
      call.argumentsError = request.argumentsError;
    }
    return call;
  }

  /**
   * Calls announced while streaming that the reply ended without (a cancel, a failure, or
   * dropped from the final message): `interrupted`, so no call is left pending.
   */
  abandonAnnounced(at: number): ToolCall[] {
    const abandoned: ToolCall[] = [];
    for (const toolCallId of this.announced) {
      const call = this.byId.get(toolCallId);
      if (call !== undefined && !isFinished(call.status)) {
        call.status = "interrupted";
        call.endedAt = at;
        call.errorMessage = ABANDONED_CALL_MESSAGE;
        abandoned.push(call);
      }
    }
    this.announced.clear();
    return abandoned;
  }

  start(data: SessionEventData["tool.execution_start"], at: number): ToolCall {
    const call = this.call(data.toolCallId, data.toolName);
    this.announced.delete(data.toolCallId);
    call.startedAt = at;
    if (call.rawArguments === undefined) {
      call.arguments = data.arguments;
    }
    if (data.mcpServerName !== undefined) {
      call.mcpServerName = data.mcpServerName;
    }
    return call;
  }

  permissionRequested(data: SessionEventData["permission.requested"], at: number): ToolCall {
    const call = this.call(data.toolCallId, data.toolName);
    const { requestId, kind, title, outsideSandbox } = data;
    call.permission = {
      requestId,
      kind,
      title,
      askedAt: at,
      ...(outsideSandbox === undefined ? {} : { outsideSandbox }),
    };
    if (call.status === "running") {
      // The one step back (tool-call.ts): a command the sandbox stopped asks before it runs again
      // outside it; the call waits for the answer, not the command.
      call.status = "awaiting_permission";
    } else {
      advance(call, "awaiting_permission");
    }
    return call;
  }

  permissionCompleted(data: SessionEventData["permission.completed"], at: number): ToolCall {
    const call = this.call(data.toolCallId, "?");
    const permission = call.permission ?? {
      requestId: data.requestId,
      kind: "",
      title: "",
      askedAt: at,
    };
    call.permission = permission;
    if (permission.answeredAt === undefined) {
      call.permissionWaitMs += Math.max(0, at - permission.askedAt);
    }
    permission.answeredAt = at;
    permission.decision = data.decision;
    permission.scope = data.scope;
    if (data.rule !== undefined) {
      permission.rule = data.rule;
    }
    if (data.reason !== undefined) {
      permission.reason = data.reason;
    }
    if (call.status === "awaiting_permission" && call.runningAt !== undefined) {
      // A question asked while the call ran: allowed, it runs again; refused, its result follows.
      if (data.decision === "allowed") {
        call.status = "running";
      }
    }
    return call;
  }

  running(toolCallId: string, at: number): ToolCall | undefined {
    const call = this.byId.get(toolCallId);
    if (call !== undefined && advance(call, "running")) {
      call.runningAt = at;
    }
    return call;
  }

  partialResult(data: SessionEventData["tool.execution_partial_result"]): ToolCall | undefined {
    const call = this.byId.get(data.toolCallId);
    if (call !== undefined && !isFinished(call.status)) {
      call.partialOutput = data.partialOutput;
    }
    return call;
  }

  /** What a call not yet running waits on (`tool.execution_progress`), and since when. */
  progress(data: SessionEventData["tool.execution_progress"], at: number): ToolCall | undefined {
    const call = this.byId.get(data.toolCallId);
    if (call !== undefined && !isFinished(call.status)) {
      call.progress = { message: data.progressMessage, since: at };
    }
    return call;
  }

  /** `persisted`: false when the log refused the event ({@link ToolCall.resultNotPersisted}). */
  complete(
    data: SessionEventData["tool.execution_complete"],
    at: number,
    persisted = true,
  ): ToolCall {
    const call = this.call(data.toolCallId, data.toolName);
    this.announced.delete(data.toolCallId);
    const reading = readResult(data);
    call.status = reading.status;
    call.endedAt = at;
    call.output = reading.output;
    delete call.partialOutput;
    delete call.progress;
    if (call.startedAt !== undefined) {
      call.durationMs = Math.max(0, at - call.startedAt - call.permissionWaitMs);
    }
    setOptional(call, "exitCode", reading.exitCode);
    setOptional(call, "signal", reading.signal);
    setOptional(call, "note", reading.note);
    setOptional(call, "leftRunning", reading.leftRunning);
    setOptional(call, "errorCode", data.error?.code);
    setOptional(call, "errorMessage", data.error?.message);
    setOptional(call, "fileChange", data.fileChange);
    const images = data.result?.images?.length ?? 0;
    setOptional(call, "imageCount", images > 0 ? images : undefined);
    setOptional(call, "resultNotPersisted", persisted ? undefined : true);
    return call;
  }
}

const ORDER: Record<ToolCallStatus, number> = {
  pending: 0,
  awaiting_permission: 1,
  running: 2,
  completed: 3,
  failed: 3,
  denied: 3,
  interrupted: 3,
};

/** Moves a call forward to `status`; never back, never out of a final state. */
function advance(call: ToolCall, status: ToolCallStatus): boolean {
  if (ORDER[status] <= ORDER[call.status]) {
    return false;
  }
  call.status = status;
  return true;
}

function setOptional<K extends keyof ToolCall>(
  call: ToolCall,
  key: K,
  value: ToolCall[K] | undefined,
): void {
  if (value === undefined) {
    delete call[key];
  } else {
    call[key] = value;
  }
}
