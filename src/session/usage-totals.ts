import type { SessionEvent, SessionEventOf } from "../events/events.js";

/**
 * The one rule every face counts a session's (or a prompt's) turns, requests, tokens and cost by,
 * folded from its events: `-p`'s summary and JSON result (the prompt's events), `/usage` and the
 * status line, ACP's `usage_update`, the server's `session.usage.getMetrics` (the session's). A
 * model request is an `assistant.turn_start` (DESIGN.md: failed and cancelled attempts and
 * compactions included; `grep -c assistant.turn_start events.jsonl`). A turn is a request the
 * session kept: not a failed attempt sent again (its `assistant.turn_end` `failed`, then an
 * `assistant.retry` naming it), which is a retry, as in Copilot (`assistant.turn_retry`: "an
 * additional model inference attempt within an existing assistant turn") and `--max-turns`
 * (agent/loop.ts). Tokens and cost: sums of `assistant.usage`, a retried attempt's included.
 */
export class UsageTotals {
  /** Model API requests: `assistant.turn_start` events. */
  requests = 0;
  /** `assistant.retry` events: requests sent again after a failed attempt. */
  retries = 0;
  /** Failed attempts that were sent again: requests that are not turns ({@link turns}). */
  retriedRequests = 0;
  /** Turns that ended `failed` and were not sent again (the prompt's error, or a skip). */
  failedTurns = 0;
  /** Turns that ended `cancelled`, or `interrupted` (their process ended first). */
  cancelledTurns = 0;
  /** Turns the loop made to compact the conversation (`purpose: "compaction"`). */
  compactionTurns = 0;
  /** Requests that reported usage: `assistant.usage` events. */
  reportedRequests = 0;
  /** Tokens summed over the requests that reported them; `undefined` (not 0) while none did. */
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
  /** US dollars, summed over the requests that reported a cost. */
  cost = 0;
  /** Requests that reported a cost (the model's price was known). */
  pricedRequests = 0;
  /**
   * The last request's `inputTokens` (cache reads and writes included; `undefined` before any
   * usage): how full the context is; after a compaction, `postCompactionTokens`' estimate.
   */
  contextTokens: number | undefined;
  /**
   * The last turn that ended, when it failed: a retry names it right after (model-turn.ts); one
   * naming another (older logs wrote it before the next attempt's start) takes back no turn.
   */
  private lastFailed: { turnId: string; compaction: boolean } | undefined;
  /** The turns started and not ended, by id: whether each is a compaction's. */
  private readonly open = new Map<string, boolean>();
  /** Turns: the {@link requests} the session kept (every one but a retried attempt). */
  get turns(): number {
    return this.requests - this.retriedRequests;
  }

  /** Whether any request reported a cost (an unknown price is not $0). */
  get costKnown(): boolean {
    return this.pricedRequests > 0;
  }

  /** Whether every request that reported usage reported a cost too (and one did). */
  get costComplete(): boolean {
    return this.reportedRequests > 0 && this.pricedRequests === this.reportedRequests;
  }

  /**
   * Folds one event; any but `assistant.turn_start`, `assistant.turn_end`, `assistant.retry`,
   * `assistant.usage` and `session.compaction_complete` is ignored.
   */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "assistant.turn_start": {
        const compaction = event.data.purpose === "compaction";
        this.requests++;
        this.compactionTurns += compaction ? 1 : 0;
        this.open.set(event.data.turnId, compaction);
        return;
      }
      case "assistant.turn_end":
        this.turnEnd(event.data);
        return;
      case "assistant.retry":
        this.retry(event.data.turnId);
        return;
      case "assistant.usage":
        this.usage(event.data);
        return;
      case "session.compaction_complete":
        if (event.data.success && event.data.postCompactionTokens !== undefined) {
          this.contextTokens = event.data.postCompactionTokens;
        }
        return;
      default:
        return;
    }
  }

  private turnEnd({ turnId, status }: SessionEventOf<"assistant.turn_end">["data"]): void {
    const failed = status === "failed" || status === "error";
    this.failedTurns += failed ? 1 : 0;
    this.cancelledTurns += status === "cancelled" || status === "interrupted" ? 1 : 0;
    this.lastFailed = failed ? { turnId, compaction: this.open.get(turnId) ?? false } : undefined;
    this.open.delete(turnId);
  }

  /** A retry of the attempt `turnId`: that attempt was no turn of its own (see the class). */
  private retry(turnId: string): void {
    this.retries++;
    const failed = this.lastFailed;
    if (failed?.turnId === turnId) {
      this.lastFailed = undefined;
      this.retriedRequests++;
      this.failedTurns--;
      this.compactionTurns -= failed.compaction ? 1 : 0;
    }
  }

  private usage(data: SessionEventOf<"assistant.usage">["data"]): void {
    this.reportedRequests++;
    this.inputTokens = sum(this.inputTokens, data.inputTokens);
    this.outputTokens = sum(this.outputTokens, data.outputTokens);
    this.cacheReadTokens = sum(this.cacheReadTokens, data.cacheReadTokens);
    this.cacheWriteTokens = sum(this.cacheWriteTokens, data.cacheWriteTokens);
    if (data.cost !== undefined) {
      this.cost += data.cost;
      this.pricedRequests++;
    }
    if (data.inputTokens !== undefined) {
      this.contextTokens = data.inputTokens;
    }
  }

  /** Totals of `events`. */
  static of(events: Iterable<SessionEvent>): UsageTotals {
    const totals = new UsageTotals();
    for (const event of events) {
      totals.apply(event);
    }
    return totals;
  }
}

/** One model's share of a session: its requests and what those requests reported. */
export interface ModelUsage {
  /** Model API requests made to this model (`assistant.turn_start` events), as {@link UsageTotals}. */
  requests: number;
  /** US dollars, summed over its requests that reported a cost. */
  cost: number;
  /** Tokens summed over its requests that reported them (0 when none did). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * {@link UsageTotals}' requests per model, for the server's `session.usage.getMetrics` and
 * `session.shutdown` (`modelMetrics`; the Copilot SDK's `requests.count`: "Total number of API
 * requests made to this model", a retried attempt included): every `assistant.turn_start` is a
 * request of the model that answered it (its `assistant.usage`'s `model`) or, when it reported no
 * usage, of the model the session ran when it started (`session.start`'s, then each
 * `session.model_change`'s). Tokens and cost are summed per `assistant.usage` model. Keyed by
 * model id, in order of first request; a request under no known model is counted under none.
 * Folded an event at a time ({@link SessionMetrics}); only open turns are held.
 */
export class ModelUsageFold {
  /** Per model, in the order the models first appear. */
  readonly byModel = new Map<string, ModelUsage>();
  /** The model the session runs now: `session.start`'s, then each `session.model_change`'s. */
  private current: string | undefined;
  /** The open turns, each with the model its request counts for (none: no model known). */
  private readonly turnModels = new Map<string, string | undefined>();

  /** Folds one event; any but the five types read here is ignored. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "session.start":
        this.current = event.data.model;
        return;
      case "session.model_change":
        this.current = event.data.newModel;
        return;
      case "assistant.turn_start":
        this.turnModels.set(event.data.turnId, this.current);
        if (this.current !== undefined) {
          this.of(this.current).requests++;
        }
        return;
      case "assistant.usage":
        this.usage(event.data);
        return;
      case "assistant.turn_end":
        this.turnModels.delete(event.data.turnId);
        return;
      default:
        return;
    }
  }

  private usage(data: SessionEventOf<"assistant.usage">["data"]): void {
    if (this.turnModels.has(data.turnId)) {
      const counted = this.turnModels.get(data.turnId);
      if (counted !== undefined) {
        this.of(counted).requests--;
      }
      this.turnModels.set(data.turnId, data.model);
      this.of(data.model).requests++;
    }
    addUsage(this.of(data.model), data);
  }

  private of(model: string): ModelUsage {
    let usage = this.byModel.get(model);
    if (usage === undefined) {
      usage = {
        requests: 0,
        cost: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      };
      this.byModel.set(model, usage);
    }
    return usage;
  }
}

function addUsage(usage: ModelUsage, data: SessionEventOf<"assistant.usage">["data"]): void {
  usage.cost += data.cost ?? 0;
  usage.inputTokens += data.inputTokens ?? 0;
  usage.outputTokens += data.outputTokens ?? 0;
  usage.cacheReadTokens += data.cacheReadTokens ?? 0;
  usage.cacheWriteTokens += data.cacheWriteTokens ?? 0;
}

function sum(total: number | undefined, value: number | undefined): number | undefined {
  return value === undefined ? total : (total ?? 0) + value;
}

/**
 * What of the turns was no plain answer, and the retries, after the count of turns in `/usage`
 * and `-p`'s summary: ` (1 failed, 1 cancelled, 1 compaction) · 1 retry`; empty when none.
 */
export function turnDetails(totals: UsageTotals): string {
  const { failedTurns, cancelledTurns, compactionTurns, retries } = totals;
  const details = [
    ...(failedTurns > 0 ? [`${failedTurns} failed`] : []),
    ...(cancelledTurns > 0 ? [`${cancelledTurns} cancelled`] : []),
    ...(compactionTurns > 0 ? [`${compactionTurns} compaction`] : []),
  ];
  const retried = retries > 0 ? ` · ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  return `${details.length === 0 ? "" : ` (${details.join(", ")})`}${retried}`;
}

/**
 * The cost in `/usage` and `-p`'s summary: `$0.0042` when every request that reported usage had
 * a price, `$0.0042 for 2 of 3 requests` when some had, `undefined` when none had.
 */
export function costText(totals: UsageTotals): string | undefined {
  if (!totals.costKnown) {
    return undefined;
  }
  const cost = formatCost(totals.cost);
  return totals.costComplete
    ? cost
    : `${cost} for ${totals.pricedRequests} of ${totals.reportedRequests} requests`;
}

/** `1234` → `1.2k`, `2500000` → `2.5M`: token counts for narrow lines. */
export function compactCount(count: number): string {
  if (count < 1000) {
    return String(count);
  }
  if (count < 1_000_000) {
    return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  }
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** US dollars with enough digits for small amounts: `$0.0042`, `$1.23`. */
export function formatCost(dollars: number): string {
  return `$${dollars < 1 ? dollars.toFixed(4) : dollars.toFixed(2)}`;
}

/** The lines an `edit` or `create` call changes, known from its `tool.execution_start`. */
interface PendingChange {
  path: string;
  linesAdded: number;
  linesRemoved: number;
}

/**
 * The session's metrics over every stored event (a rewind drops none), what `session.shutdown`
 * and `session.usage.getMetrics` report (server/shutdown-metrics.ts), folded as events arrive
 * (resume-fold.ts, session.ts): no log is read then (issue 26, bench/notes/memory31.md). Here,
 * not a module of its own on the start-up path (test/cli/modules-loaded.test.ts).
 */
export class SessionMetrics {
  /** `startTime` of the first `session.start` (ISO 8601), if one was folded. */
  startTime: string | undefined;
  /**
   * Milliseconds from each conversation turn's `assistant.turn_start` (no `purpose`) to its
   * `assistant.message`, or to its `assistant.turn_end` when no reply came.
   */
  apiDurationMs = 0;
  /** Requests and usage per model ({@link ModelUsageFold}). */
  readonly usage = new ModelUsageFold();
  /** Lines added and removed by the successful `edit` and `create` calls. */
  linesAdded = 0;
  linesRemoved = 0;
  /** The paths those calls changed, as given (resolved against the cwd by the reader). */
  readonly filesModified = new Set<string>();
  /** Prompts the user sent (`user.message`, `source: "user"`); the last `assistant.usage`. */
  userRequests = 0;
  lastUsage: { inputTokens?: number; outputTokens?: number } = {};
  /** Open conversation turns: turn id → when it started (ms since the epoch). */
  private readonly started = new Map<string, number>();
  /** The conversation turn a reply (`assistant.message`) ends. */
  private open: string | undefined;
  /** `edit` and `create` calls started and not ended yet. */
  private readonly changes = new Map<string, PendingChange>();

  /** Folds one stored event; types the metrics do not read are ignored. */
  apply(event: SessionEvent): void {
    this.usage.apply(event);
    switch (event.type) {
      case "session.start":
        this.startTime ??= event.data.startTime;
        return;
      case "user.message":
        this.userRequests += event.data.source === "user" ? 1 : 0;
        return;
      case "assistant.usage":
        this.lastUsage = event.data;
        return;
      case "assistant.turn_start":
        if (event.data.purpose === undefined) {
          this.started.set(event.data.turnId, Date.parse(event.timestamp));
          this.open = event.data.turnId;
        }
        return;
      case "assistant.message":
        this.finishTurn(this.open, event.timestamp);
        return;
      case "assistant.turn_end":
        this.finishTurn(event.data.turnId, event.timestamp);
        return;
      case "tool.execution_start":
        this.startCall(event.data);
        return;
      case "tool.execution_complete":
        this.completeCall(event.data.toolCallId, event.data.success);
        return;
      default:
        return;
    }
  }

  private finishTurn(turnId: string | undefined, timestamp: string): void {
    const at = turnId === undefined ? undefined : this.started.get(turnId);
    if (turnId !== undefined && at !== undefined) {
      this.apiDurationMs += Math.max(0, Date.parse(timestamp) - at);
      this.started.delete(turnId);
    }
  }

  private startCall(call: SessionEventOf<"tool.execution_start">["data"]): void {
    const given = call.arguments;
    const path = given.path;
    if (typeof path !== "string" || (call.toolName !== "edit" && call.toolName !== "create")) {
      this.changes.delete(call.toolCallId);
      return;
    }
    const edit = call.toolName === "edit";
    this.changes.set(call.toolCallId, {
      path,
      linesRemoved: edit ? lineCount(given.old_str) : 0,
      linesAdded: lineCount(edit ? given.new_str : given.file_text),
    });
  }

  private completeCall(toolCallId: string, success: boolean): void {
    const change = this.changes.get(toolCallId);
    this.changes.delete(toolCallId);
    if (change === undefined || !success) {
      return;
    }
    this.linesAdded += change.linesAdded;
    this.linesRemoved += change.linesRemoved;
    this.filesModified.add(change.path);
  }
}

/** Lines of a text argument (`"a\nb"` and `"a\nb\n"` are two); 0 for no text. */
function lineCount(text: unknown): number {
  if (typeof text !== "string" || text === "") {
    return 0;
  }
  return text.replace(/\n$/, "").split("\n").length;
}
