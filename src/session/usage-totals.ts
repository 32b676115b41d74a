import type { SessionEvent, SessionEventOf } from "../events/events.js";

/**
 * The one rule every face counts a session's (or a prompt's) model requests, tokens and cost by,
 * folded from its events: `-p`'s summary line and JSON result (over the prompt's events), `/usage`
 * and the interactive status line, ACP's `usage_update`, the server's `session.usage.getMetrics`
 * (over the session's). A request is an `assistant.turn_start` (DESIGN.md: every model API
 * request is a turn, failed and cancelled attempts and the loop's own compaction and title
 * requests included), so `grep -c assistant.turn_start events.jsonl` gives the same number;
 * tokens and cost are the sums of what the `assistant.usage` events reported.
 */
export class UsageTotals {
  /** Model API requests: `assistant.turn_start` events. */
  requests = 0;
  /** Requests that ended `failed` (each then retried, or the prompt's error). */
  failedRequests = 0;
  /** Requests that ended `cancelled`, or `interrupted` (their process ended first). */
  cancelledRequests = 0;
  /** Requests the loop made to compact the conversation (`purpose: "compaction"`). */
  compactionRequests = 0;
  /** Requests that reported usage: `assistant.usage` events. */
  reportedRequests = 0;
  /**
   * Tokens summed over the requests that reported them; `undefined` while no request reported
   * that count (a count no provider reported is left out, not 0).
   */
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
  /** US dollars, summed over the requests that reported a cost. */
  cost = 0;
  /** Requests that reported a cost (the model's price was known). */
  pricedRequests = 0;
  /**
   * Tokens the last request sent (input plus cached input): how full the context is now; after a
   * compaction that succeeded, its estimate of the next request (`postCompactionTokens`, which the
   * compaction's line shows), not the summary request's own input. `undefined` before the first
   * reported usage.
   */
  contextTokens: number | undefined;

  /** Whether any request reported a cost (an unknown price is not $0). */
  get costKnown(): boolean {
    return this.pricedRequests > 0;
  }

  /** Whether every request that reported usage reported a cost too (and one did). */
  get costComplete(): boolean {
    return this.reportedRequests > 0 && this.pricedRequests === this.reportedRequests;
  }

  /**
   * Folds one event; any but `assistant.turn_start`, `assistant.turn_end`, `assistant.usage` and
   * `session.compaction_complete` is ignored.
   */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "assistant.turn_start":
        this.requests++;
        this.compactionRequests += event.data.purpose === "compaction" ? 1 : 0;
        return;
      case "assistant.turn_end": {
        const { status } = event.data;
        this.failedRequests += status === "failed" || status === "error" ? 1 : 0;
        this.cancelledRequests += status === "cancelled" || status === "interrupted" ? 1 : 0;
        return;
      }
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
      this.contextTokens = data.inputTokens + (data.cacheReadTokens ?? 0);
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
 * {@link UsageTotals}' rule per model, for the server's `session.usage.getMetrics` and
 * `session.shutdown` (`modelMetrics`; the Copilot SDK's `requests.count`: "Total number of API
 * requests made to this model"): every `assistant.turn_start` is a request of the model that
 * answered it (its `assistant.usage`'s `model`) or, when it reported no usage (failed, cancelled,
 * a provider that reports none), of the model the session ran when it started (`session.start`'s,
 * then each `session.model_change`'s). Tokens and cost are summed per `assistant.usage` model.
 * Keyed by the log's model ids, in the order the models first appear in its requests; a turn of a
 * log that names no model (no `session.start`) and reported no usage is counted under none.
 */
export function usageByModel(events: Iterable<SessionEvent>): Map<string, ModelUsage> {
  const fold = new ModelUsageFold();
  for (const event of events) {
    fold.apply(event);
  }
  return fold.byModel;
}

/**
 * {@link usageByModel} folded one event at a time, so a session can keep it as its events arrive
 * ({@link SessionMetrics}) instead of reading its log again. A turn's request moves to the model of
 * its `assistant.usage`; the turn is forgotten at its `assistant.turn_end` (the loop records
 * the usage before it, model-turn.ts), so the fold holds only the turns still open.
 */
export class ModelUsageFold {
  /** Per model, in the order the models first appear (see {@link usageByModel}). */
  readonly byModel = new Map<string, ModelUsage>();
  /** The model the session runs now: `session.start`'s, then each `session.model_change`'s. */
  private current: string | undefined;
  /** The open turns, each with the model its request counts for (none: no model known). */
  private readonly turnModels = new Map<string, string | undefined>();

  /** Folds one event; any but the five types {@link usageByModel} reads is ignored. */
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
 * What of the requests was not a plain answer, as `/usage` and `-p`'s summary say it after their
 * count: ` (1 failed, 1 cancelled, 1 compaction)`; empty when all were.
 */
export function requestDetails(totals: UsageTotals): string {
  const { failedRequests, cancelledRequests, compactionRequests } = totals;
  const details = [
    ...(failedRequests > 0 ? [`${failedRequests} failed`] : []),
    ...(cancelledRequests > 0 ? [`${cancelledRequests} cancelled`] : []),
    ...(compactionRequests > 0 ? [`${compactionRequests} compaction`] : []),
  ];
  return details.length === 0 ? "" : ` (${details.join(", ")})`;
}

/**
 * The cost as `/usage` and `-p`'s summary say it: `$0.0042` when every request that reported
 * usage had a price, `$0.0042 for 2 of 3 requests` when only some had, `undefined` when none had.
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

/**
 * What a session's `session.shutdown` reports of its whole log (server/shutdown-metrics.ts),
 * folded as the session's stored events arrive: read by the resume (resume-fold.ts), then each
 * event the session records or reads from another process (session.ts). The server's shutdown
 * then reads nothing: a session with a reply of many MB decoded that line twice more at exit,
 * and held the whole log (issue 26, bench/notes/memory31.md).
 */
/** The lines an `edit` or `create` call changes, known from its `tool.execution_start`. */
interface PendingChange {
  path: string;
  linesAdded: number;
  linesRemoved: number;
}

/**
 * The session's metrics so far, over every stored event (a rewind drops none of them): its first
 * `session.start`'s time, the model API time, the requests and usage per model
 * (usage-totals.ts `ModelUsageFold`), and the code the successful `edit` and `create` calls
 * changed. Holds only what is still open (turns, calls) besides the totals.
 */
export class SessionMetrics {
  /** `startTime` of the first `session.start` (ISO 8601), if one was folded. */
  startTime: string | undefined;
  /**
   * Milliseconds from each conversation turn's `assistant.turn_start` (no `purpose`) to its
   * `assistant.message`, or to its `assistant.turn_end` when no reply came.
   */
  apiDurationMs = 0;
  /** Requests and usage per model (usage-totals.ts `usageByModel`'s rule). */
  readonly usage = new ModelUsageFold();
  /** Lines added and removed by the successful `edit` and `create` calls. */
  linesAdded = 0;
  linesRemoved = 0;
  /** The paths those calls changed, as given (resolved against the cwd by the reader). */
  readonly filesModified = new Set<string>();
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
