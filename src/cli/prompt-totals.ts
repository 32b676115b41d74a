import { costText, turnDetails, type UsageTotals } from "../session/usage-totals.js";

/**
 * `-p`'s closing summary line: the prompt's turns (the model requests it kept, with the retries
 * said apart, by the rule `/usage` and the JSON result count them: usage-totals.ts), tokens, cost
 * (when a price is known), time and session id, on one line: `2 turns (1 failed) · 1 retry · 30
 * in / 15 out tokens · $0.0028 · 1.2 s · session <id>`. `sessionId` undefined: "session not saved" (its store refused it, so no id to
 * resume).
 */
export function summaryLine(
  totals: UsageTotals,
  elapsedMs: number,
  sessionId: string | undefined,
): string {
  const { turns: count, inputTokens, outputTokens } = totals;
  const tokens =
    inputTokens === undefined && outputTokens === undefined
      ? "tokens not reported"
      : `${inputTokens ?? "?"} in / ${outputTokens ?? "?"} out tokens`;
  const turns = `${count} turn${count === 1 ? "" : "s"}${turnDetails(totals)}`;
  const cost = costText(totals);
  return [
    turns,
    tokens,
    ...(cost === undefined ? [] : [cost]),
    `${(elapsedMs / 1000).toFixed(1)} s`,
    sessionId === undefined ? "session not saved" : `session ${sessionId}`,
  ].join(" · ");
}
