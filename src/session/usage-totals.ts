import type { SessionEvent } from "../events/events.js";

/**
 * Token and cost totals of a session, folded from its `assistant.usage` events. Shared by the
 * interactive status line and the `/usage` command.
 */
export class UsageTotals {
  /** Model requests that reported usage. */
  requests = 0;
  /** Tokens. */
  inputTokens = 0;
  outputTokens = 0;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  /** US dollars, summed over the requests that reported a cost. */
  cost = 0;
  /** Whether any request reported a cost (an unknown price is not $0). */
  costKnown = false;
  /**
   * Tokens the last request sent (input plus cached input): how full the context is now.
   * `undefined` before the first reported usage.
   */
  contextTokens: number | undefined;

  /** Folds one event; anything but `assistant.usage` is ignored. */
  apply(event: SessionEvent): void {
    if (event.type !== "assistant.usage") {
      return;
    }
    const { data } = event;
    this.requests++;
    this.inputTokens += data.inputTokens ?? 0;
    this.outputTokens += data.outputTokens ?? 0;
    this.cacheReadTokens += data.cacheReadTokens ?? 0;
    this.cacheWriteTokens += data.cacheWriteTokens ?? 0;
    if (data.cost !== undefined) {
      this.cost += data.cost;
      this.costKnown = true;
    }
    if (data.inputTokens !== undefined) {
      this.contextTokens = data.inputTokens + (data.cacheReadTokens ?? 0);
    }
  }

  /** Totals of `events`. */
  static of(events: readonly SessionEvent[]): UsageTotals {
    const totals = new UsageTotals();
    for (const event of events) {
      totals.apply(event);
    }
    return totals;
  }
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
