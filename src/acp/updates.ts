import { resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { type DrawnEvent, isSdkAppEvent } from "../events/event-categories.js";
import type { JsonObject, SessionEvent, SessionEventData } from "../events/events.js";
import {
  type Change,
  isFinished,
  SessionFold,
  type ToolCall,
} from "../session/session-model/session-model.js";
import type { AnyTool } from "../tools/define-tool.js";
import { CompactionUpdates } from "./compaction-updates.js";
import { noticeUpdate, promptEndNotice, recordedNotice } from "./notices.js";
import { chunk, replayedPrompt, titleFrom } from "./prompt-content.js";
import { announcedTitle, callTitle, finishedUpdate, textContent } from "./tool-call-content.js";

/** How a session's events are being turned into updates. */
export type MappingMode =
  /** A prompt turn as it happens: deltas stream, the user's own prompt is not echoed. */
  | "live"
  /** `session/load`: the persisted log, so whole messages and the user's prompts are sent. */
  | "replay";

export interface UpdateMapperOptions {
  mode: MappingMode;
  /** The session's working directory; relative tool paths resolve against it. */
  cwd: string;
  /** The tool a call names (for its kind, title and locations); `undefined` for unknown tools. */
  toolNamed: (name: string) => AnyTool | undefined;
  /** Context window of a model, in tokens (`usage_update.size`). */
  contextWindow: (modelId: string) => number;
  /** Whether the session has had a user prompt or a name already (its title is known). */
  titled: boolean;
  /** Whether the client offered `session.notices`: how turnloop's notices are sent (notices.ts). */
  notices: boolean;
}

/**
 * Maps our session events onto ACP v1 `session/update`s, one event at a time, in order.
 *
 * Tool calls (ACP v1 tool-calls): `tool_call` (pending, with kind and a title from the tool's
 * name) as soon as the model starts the call (`assistant.tool_call_start`, while its arguments
 * still stream); once they are complete (`assistant.message`), a `tool_call_update` with the
 * `rawInput`, the locations and a title from the arguments. A call first seen in
 * `assistant.message` (a replay, a provider without tool-input starts) gets one `tool_call` with
 * all of it. Either way the call is announced before any `session/request_permission`.
 * `in_progress` only when the tool actually runs (`tool.execution_running`: after permission was
 * granted, or at once when none was needed), so a refused, unknown or invalid call goes from
 * pending straight to failed; completed or failed with
 * content at `tool.execution_complete` (text; a diff for `edit` / `create`; the terminal when the
 * command ran in a client terminal; the images a tool returned). Whether a call `completed` or
 * `failed` is the session model's one rule (src/session/session-model/tool-call.ts): a command
 * that exited non-zero is `failed`, and so is a result the log refused (tool-call-content.ts
 * `finishedUpdate`). Message chunks carry the
 * `messageId` of our `assistant.message`, so live and replayed messages have the same ids.
 */
export class UpdateMapper {
  /** The session model the updates are read from (tool calls, cost). */
  private readonly fold = new SessionFold();
  /** Calls the client was sent a `tool_call` for. */
  private readonly sent = new Set<string>();
  /** `text:<messageId>` / `reasoning:<messageId>` of messages whose deltas were sent. */
  private readonly streamed = new Set<string>();
  private readonly terminals = new Map<string, string>();
  private readonly compaction = new CompactionUpdates();
  private readonly options: UpdateMapperOptions;
  private titled: boolean;

  constructor(options: UpdateMapperOptions) {
    this.options = options;
    this.titled = options.titled;
  }

  /** A fresh mapper of the same session for `session/load`'s replay (replay.ts): not titled. */
  replaying(): UpdateMapper {
    return new UpdateMapper({ ...this.options, mode: "replay", titled: false });
  }

  /** Records that a call's command runs in the client terminal `terminalId`. */
  attachTerminal(toolCallId: string, terminalId: string): acp.SessionUpdate {
    this.terminals.set(toolCallId, terminalId);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId,
      content: [{ type: "terminal", terminalId }],
    };
  }

  /** The `tool_call` fields of a call (kind, title, locations, rawInput), for permission requests too. */
  describe(toolCallId: string): Omit<acp.ToolCall, "toolCallId"> | undefined {
    const call = this.fold.toolCall(toolCallId);
    return call === undefined ? undefined : this.describeCall(call);
  }

  /**
   * Folds `events` (a session's stored events, before this mapper's first) without an update, so
   * that what follows is read against the whole session: `usage_update.cost` is the session's
   * cost so far (README, ACP) after a `session/load`, as in the other faces (usage-totals.ts).
   */
  learn(events: readonly SessionEvent[]): void {
    for (const event of events) {
      this.fold.apply(event);
    }
  }

  /**
   * The updates for one event (often none). Exhaustive over the event union; an SDK app's own
   * requests and reports (`isSdkAppEvent`) are no editor's business, but for a name it gave the
   * session (`session.title_changed`: `session.name.set`, a fork's name): the editor's title, an
   * ACP v1 `session_info_update` (/work/shared/reference/acp.md §1.7), live and replayed alike,
   * which a first prompt after it no longer replaces.
   */
  map(event: SessionEvent): acp.SessionUpdate[] {
    const change = this.fold.apply(event);
    if (event.type === "session.title_changed") {
      this.titled = true;
      const { title } = event.data;
      return [{ sessionUpdate: "session_info_update", title, updatedAt: event.timestamp }];
    }
    if (isSdkAppEvent(event)) {
      return [];
    }
    return this.updatesOf(event, change);
  }

  /** The updates of one event (see {@link map}). */
  private updatesOf(event: DrawnEvent, change: Change): acp.SessionUpdate[] {
    switch (event.type) {
      case "user.message":
        return this.userMessage(event.data, event.id, event.timestamp);
      case "assistant.message_delta":
        return this.delta("text", event.data);
      case "assistant.reasoning_delta":
        return this.delta("reasoning", event.data);
      case "assistant.message":
        return this.assistantMessage(event.data, change);
      case "assistant.usage":
        return this.usage(event.data);
      case "assistant.tool_call_start":
        return this.announce(event.data.toolCallId, event.data.toolName);
      case "tool.execution_running":
        return this.inProgress(event.data.toolCallId);
      case "tool.execution_partial_result":
        return this.partialResult(event.data);
      case "tool.execution_progress":
        return this.progress(event.data);
      case "tool.execution_complete":
        return this.toolComplete(event.data);
      case "assistant.turn_start":
        return this.compaction.turnStarted(event.data);
      case "session.compaction_start":
        return this.compaction.start(event.data, event.id);
      case "session.compaction_complete":
        return this.compaction.complete(event.data, event.id);
      case "session.warning":
      case "session.autopilot_stopped":
      case "assistant.retry":
        // Live and replayed alike, so a reloaded thread shows what the live one did (case 25).
        return [noticeUpdate(recordedNotice(event), this.options.notices)];
      case "session.plan_updated":
        return [planUpdate(event.data.entries)];
      case "session.start":
      case "session.resume":
        return this.abandoned(change);
      case "assistant.turn_end":
      case "session.error":
      case "abort":
        return [...this.abandoned(change), ...this.promptEnd(event)];
      case "tool.execution_start":
      case "permission.completed":
      case "permission.requested":
      case "session.task_complete":
      case "session.idle":
      case "hook.start":
      case "hook.end":
      case "session.instructions_loaded":
      case "session.mcp_server_status_changed":
      case "session.info":
        // Shown otherwise (the permission request, the call's result) or not at all.
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  }

  /** How a prompt ended: live, its answer says it; a replay has no answer, so a notice (case 25). */
  private promptEnd(event: Parameters<typeof promptEndNotice>[0]): acp.SessionUpdate[] {
    const end = this.options.mode === "replay" ? promptEndNotice(event) : undefined;
    return end === undefined ? [] : [noticeUpdate(end, this.options.notices)];
  }

  /** A streamed piece of the message `messageId` (its whole text is then not sent again). */
  private delta(
    kind: "text" | "reasoning",
    { messageId, deltaContent }: { messageId: string; deltaContent: string },
  ): acp.SessionUpdate[] {
    this.streamed.add(`${kind}:${messageId}`);
    const update = kind === "text" ? "agent_message_chunk" : "agent_thought_chunk";
    return [chunk(update, deltaContent, messageId)];
  }

  private userMessage(
    data: SessionEventData["user.message"],
    eventId: string,
    timestamp: string,
  ): acp.SessionUpdate[] {
    if (data.source !== "user") {
      // Autopilot nudges and hooks are ours, not the user's words.
      return [];
    }
    const updates = this.options.mode === "replay" ? replayedPrompt(data, eventId) : [];
    if (!this.titled) {
      this.titled = true;
      updates.push({
        sessionUpdate: "session_info_update",
        title: titleFrom(data),
        updatedAt: timestamp,
      });
    }
    return updates;
  }

  private assistantMessage(
    data: SessionEventData["assistant.message"],
    change: Change,
  ): acp.SessionUpdate[] {
    const updates: acp.SessionUpdate[] = [];
    const { messageId } = data;
    if (data.reasoning !== undefined && data.reasoning !== "") {
      if (!this.streamed.has(`reasoning:${messageId}`)) {
        updates.push(chunk("agent_thought_chunk", data.reasoning, messageId));
      }
    }
    if (data.content !== "" && !this.streamed.has(`text:${messageId}`)) {
      updates.push(chunk("agent_message_chunk", data.content, messageId));
    }
    this.streamed.delete(`text:${messageId}`);
    this.streamed.delete(`reasoning:${messageId}`);
    const calls = change.kind === "message" ? change.toolCalls : [];
    for (const call of calls) {
      const { toolCallId } = call;
      if (this.sent.has(toolCallId)) {
        updates.push({ sessionUpdate: "tool_call_update", toolCallId, ...this.describeCall(call) });
      } else {
        this.sent.add(toolCallId);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId,
          status: "pending",
          ...this.describeCall(call),
        });
      }
    }
    // The message is the whole reply: a call it does not list will never run.
    updates.push(...this.abandoned(change));
    return updates;
  }

  /**
   * Calls announced while streaming that the reply ended without (cancelled or failed mid-reply,
   * or dropped from the final message; the session model marks them interrupted): failed, so no
   * call is left pending in the client.
   */
  private abandoned(change: Change): acp.SessionUpdate[] {
    const calls =
      change.kind === "message" || change.kind === "turn" || change.kind === "opened"
        ? change.abandoned
        : [];
    return calls
      .filter((call) => this.sent.has(call.toolCallId))
      .map(
        (call): acp.SessionUpdate => ({
          sessionUpdate: "tool_call_update",
          toolCallId: call.toolCallId,
          status: "failed",
          content: [textContent(call.errorMessage ?? "Not run.")],
        }),
      );
  }

  /** The early `tool_call` of a call whose arguments are streaming (live only). */
  private announce(toolCallId: string, toolName: string): acp.SessionUpdate[] {
    if (this.options.mode === "replay" || this.sent.has(toolCallId)) {
      return [];
    }
    this.sent.add(toolCallId);
    const tool = this.options.toolNamed(toolName);
    const title = announcedTitle(toolName, tool, this.options.cwd);
    const kind = tool?.kind ?? "other";
    return [{ sessionUpdate: "tool_call", toolCallId, title, kind, status: "pending" }];
  }

  private describeCall(call: ToolCall): Omit<acp.ToolCall, "toolCallId"> {
    const rawInput: JsonObject =
      call.argumentsError === undefined
        ? call.arguments
        : { rawArguments: call.rawArguments ?? "" };
    const tool = this.options.toolNamed(call.toolName);
    if (tool === undefined) {
      return { title: call.toolName, kind: "other", rawInput, locations: [] };
    }
    const parsed = tool.input.safeParse(call.arguments);
    if (!parsed.success || tool.scope === undefined || call.argumentsError !== undefined) {
      return { title: tool.name, kind: tool.kind, rawInput, locations: [] };
    }
    const scope = tool.scope(parsed.data, this.options.cwd);
    // A command's "location" is the cwd, which is no place to follow the agent to.
    const locations =
      tool.kind === "execute"
        ? []
        : scope.paths.map((path) => ({ path: resolve(this.options.cwd, path) }));
    return { title: callTitle(scope.title), kind: tool.kind, rawInput, locations };
  }

  private usage(data: SessionEventData["assistant.usage"]): acp.SessionUpdate[] {
    const { cost, costKnown } = this.fold.model.usage;
    if (data.inputTokens === undefined || this.compaction.isCompactionTurn(data.turnId)) {
      return [];
    }
    const used = Math.round(data.inputTokens + (data.outputTokens ?? 0));
    return [
      {
        sessionUpdate: "usage_update",
        used,
        size: this.options.contextWindow(data.model),
        ...(costKnown ? { cost: { amount: cost, currency: "USD" } } : {}),
      },
    ];
  }

  private inProgress(toolCallId: string): acp.SessionUpdate[] {
    // A replay shows final states only.
    if (this.options.mode === "replay") {
      return [];
    }
    return [{ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" }];
  }

  /** What a live call waits on before it runs (`waiting for MCP server fs to start`): its content. */
  private progress({
    toolCallId,
    progressMessage,
  }: {
    toolCallId: string;
    progressMessage: string;
  }) {
    const shown = this.options.mode === "live" && this.sent.has(toolCallId);
    const content = [textContent(progressMessage)];
    return shown ? [{ sessionUpdate: "tool_call_update" as const, toolCallId, content }] : [];
  }

  private partialResult(
    data: SessionEventData["tool.execution_partial_result"],
  ): acp.SessionUpdate[] {
    // A terminal shows the output itself; a late partial must not replace a final result.
    const call = this.fold.toolCall(data.toolCallId);
    if (
      call === undefined ||
      isFinished(call.status) ||
      !this.sent.has(data.toolCallId) ||
      this.terminals.has(data.toolCallId)
    ) {
      return [];
    }
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: data.toolCallId,
        content: [textContent(data.partialOutput)],
      },
    ];
  }

  private toolComplete(data: SessionEventData["tool.execution_complete"]): acp.SessionUpdate[] {
    const updates: acp.SessionUpdate[] = [];
    const call = this.fold.toolCall(data.toolCallId);
    if (!this.sent.has(data.toolCallId)) {
      this.sent.add(data.toolCallId);
      // A result whose request we never saw (a damaged log): announce the call first.
      updates.push({
        sessionUpdate: "tool_call",
        toolCallId: data.toolCallId,
        title: data.toolName,
        kind: this.options.toolNamed(data.toolName)?.kind ?? "other",
        status: "pending",
        rawInput: {},
      });
    }
    updates.push(finishedUpdate(data, call, this.terminals.get(data.toolCallId)));
    this.terminals.delete(data.toolCallId);
    return updates;
  }
}

/** ACP v1 agent-plan: the whole plan, each time it changes. */
function planUpdate(entries: readonly acp.PlanEntry[]): acp.SessionUpdate {
  return { sessionUpdate: "plan", entries: entries.map((entry) => ({ ...entry })) };
}
