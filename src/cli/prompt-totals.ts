import { costText, turnDetails, type UsageTotals } from "../session/usage-totals.js";

/** What `-p`'s closing summary line is made of. */
export interface SummaryParts {
  /** The prompt's turns, tokens and cost. */
  totals: UsageTotals;
  /** Wall time of the prompt, ms. */
  elapsedMs: number;
  /** The session to resume; undefined when its store refused it. */
  sessionId: string | undefined;
  /** Tool calls refused in the prompt (the JSON result's `permission_denials`). */
  refusedCalls: number;
  /**
   * The pids of processes the prompt's commands left running that still run as the line is
   * written (tools/pipe-holders.ts `stillRunning`), in the order the calls named them.
   */
  leftRunning: readonly number[];
}

/**
 * `-p`'s closing summary line: the prompt's turns (the model requests it kept, with the retries
 * said apart, by the rule `/usage` and the JSON result count them: usage-totals.ts), the refused
 * calls when there were any, tokens, cost (when a price is known), time and session id, on one
 * line: `2 turns (1 failed) · 1 retry · 2 calls refused · 30 in / 15 out tokens · $0.0028 · 1.2 s
 * · 2 processes left running (pids 4242, 4243) · session <id>`: the processes its commands left
 * running are named by pid when any still runs (their tool lines name their command lines), as
 * they outlive `-p` (trial 40 F12). `sessionId` undefined: "session not saved" (its store refused
 * it, so no id to resume).
 */
export function summaryLine(parts: SummaryParts): string {
  const { totals, elapsedMs, sessionId, refusedCalls, leftRunning } = parts;
  const left = leftRunning.length;
  const { turns: count, inputTokens, outputTokens } = totals;
  const tokens =
    inputTokens === undefined && outputTokens === undefined
      ? "tokens not reported"
      : `${inputTokens ?? "?"} in / ${outputTokens ?? "?"} out tokens`;
  const turns = `${count} turn${count === 1 ? "" : "s"}${turnDetails(totals)}`;
  const cost = costText(totals);
  return [
    turns,
    ...(refusedCalls === 0 ? [] : [`${refusedCalls} call${refusedCalls === 1 ? "" : "s"} refused`]),
    tokens,
    ...(cost === undefined ? [] : [cost]),
    `${(elapsedMs / 1000).toFixed(1)} s`,
    ...(left === 0
      ? []
      : [
          `${left} process${left === 1 ? "" : "es"} left running (pid${left === 1 ? "" : "s"} ${leftRunning.join(", ")})`,
        ]),
    sessionId === undefined ? "session not saved" : `session ${sessionId}`,
  ].join(" · ");
}
