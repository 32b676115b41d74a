/**
 * The last steps of the fold: turn times in the older log order, the span of each turn, and the
 * summary.
 */

import type { RepairNote } from "../../events/events.js";
import type { Folder } from "./folder.js";
import type { SessionView, ViewSummary, ViewTurn } from "./view-model.js";

/** Fixes up turn times once the whole log is read, and adds up the summary. */
export function finishView(folder: Folder, repaired: readonly RepairNote[]): SessionView {
  const olderOrder = folder.endedBeforeTools.size > 0;
  for (const turn of folder.turns) {
    if (olderOrder && turn.purpose === undefined) {
      // turn_start was written at the first token; the request left with the event before it.
      turn.firstTokenAt = turn.requestAt;
      turn.requestAt = Math.min(turn.requestAt, folder.previousAt.get(turn) ?? turn.requestAt);
    }
    turn.spanEnd = spanEnd(turn, folder.lastAt);
  }
  folder.turns.forEach((turn, at) => {
    const retried = folder.turns[at + 1]?.number === turn.number;
    const attempt = turn.attempt > 1 || retried ? `, attempt ${turn.attempt}` : "";
    turn.title = `Turn ${turn.number}${attempt}`;
  });
  return {
    summary: summarize(folder, repaired),
    prompts: folder.prompts,
    turns: folder.turns,
    compactions: folder.compactions,
  };
}

/** The end of everything a turn holds; an open turn or tool lasts to the end of the log. */
function spanEnd(turn: ViewTurn, logEnd: number): number {
  const open = turn.status === "open" || turn.tools.some((tool) => tool.status === "running");
  const times = [turn.requestAt, turn.firstTokenAt, turn.lastTokenAt, turn.endAt];
  for (const tool of turn.tools) {
    times.push(tool.start, tool.end, tool.permission?.requested, tool.permission?.completed);
  }
  const known = times.filter((time): time is number => time !== undefined);
  return open ? logEnd : Math.max(...known);
}

function summarize(folder: Folder, repaired: readonly RepairNote[]): ViewSummary {
  const session = folder.session;
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const models = new Set<string>(typeof session.model === "string" ? [session.model] : []);
  const toolCalls: ViewSummary["toolCalls"] = {};
  let cost = 0;
  let costedRequests = 0;
  for (const turn of folder.turns) {
    if (turn.model !== undefined) {
      models.add(turn.model);
    }
    for (const key of Object.keys(tokens) as Array<keyof typeof tokens>) {
      tokens[key] += turn.usage?.[key] ?? 0;
    }
    if (turn.cost !== undefined) {
      cost += turn.cost;
      costedRequests += 1;
    }
    for (const tool of turn.tools) {
      const outcomes = toolCalls[tool.name] ?? {};
      toolCalls[tool.name] = outcomes;
      outcomes[tool.status] = (outcomes[tool.status] ?? 0) + 1;
    }
  }
  // Each session.resume may list damage that an earlier one (or this read) reports too.
  const seen = new Set(repaired.map((note) => `${note.offset}:${note.reason}`));
  const resumeRepairs = folder.resumeRepairs.filter((note) => {
    const key = `${note.offset}:${note.reason}`;
    const fresh = !seen.has(key);
    seen.add(key);
    return fresh;
  });
  const summary: ViewSummary = {
    models: [...models],
    prompts: folder.prompts.filter((prompt) => prompt.source !== "none").length,
    // Turns by the one rule (usage-totals.ts): a retried attempt is not one.
    turns: folder.model.model.usage.turns + folder.implicitTurns,
    requests: folder.turns.length,
    toolCalls,
    tokens,
    costedRequests,
    wallMs: folder.lastAt,
    repaired: [
      ...resumeRepairs.map((note) => ({ ...note, when: "on resume" as const })),
      ...repaired.map((note) => ({ ...note, when: "now" as const })),
    ],
    running: folder.turns.some((turn) => turn.spanEnd === folder.lastAt && isOpen(turn)),
  };
  for (const key of ["sessionId", "cwd", "producerVersion", "startTime"] as const) {
    const value = session[key];
    if (typeof value === "string") {
      summary[key] = value;
    }
  }
  if (costedRequests > 0) {
    summary.cost = cost;
  }
  return summary;
}

function isOpen(turn: ViewTurn): boolean {
  return turn.status === "open" || turn.tools.some((tool) => tool.status === "running");
}
