import type { SessionEventOf } from "../events/events.js";

/** A `-p` prompt's turns, tokens and cost, for its closing summary line. */
export class PromptTotals {
  turns = 0;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /** USD; undefined until a turn with a known price. */
  cost: number | undefined;

  addUsage(usage: SessionEventOf<"assistant.usage">["data"]): void {
    this.inputTokens = add(this.inputTokens, usage.inputTokens);
    this.outputTokens = add(this.outputTokens, usage.outputTokens);
    this.cost = add(this.cost, usage.cost);
  }

  /**
   * Turns, tokens, cost (USD, when the price is known), time and session id, on one line;
   * `sessionId` undefined: "session not saved" (its store refused it, so no id to resume).
   */
  line(elapsedMs: number, sessionId: string | undefined): string {
    const tokens =
      this.inputTokens === undefined && this.outputTokens === undefined
        ? "tokens not reported"
        : `${this.inputTokens ?? "?"} in / ${this.outputTokens ?? "?"} out tokens`;
    const turns = `${this.turns} turn${this.turns === 1 ? "" : "s"}`;
    const cost = this.cost === undefined ? "" : ` · $${this.cost.toFixed(4)}`;
    return `${turns} · ${tokens}${cost} · ${(elapsedMs / 1000).toFixed(1)} s · ${sessionId === undefined ? "session not saved" : `session ${sessionId}`}`;
  }
}

function add(total: number | undefined, value: number | undefined): number | undefined {
  return value === undefined ? total : (total ?? 0) + value;
}
