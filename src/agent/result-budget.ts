import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, makeFolders } from "../events/errors.js";
import { SecretStreamRedactor, type SecretValue } from "../events/secrets.js";
import type { HistoryMessage } from "../llm/provider.js";
import {
  findOmittedMarker,
  lineBreaksIn,
  markedTail,
  omittedMarker,
} from "../tools/command-output.js";
import type { History } from "./history.js";
import { estimateMessageTokens } from "./token-estimate.js";
import type { ToolCallOutcome } from "./tool-calls.js";

/**
 * Share of the context window that the results of one turn may take together. With the summary
 * (at most a fifth of the window) and the latest user message, a compacted view that keeps the
 * latest turn whole stays under the compaction threshold (issue 27, item 1).
 */
export const TURN_RESULTS_SHARE = 0.5;
/** Characters every result may keep, however many calls share the budget. */
export const MIN_RESULT_CHARACTERS = 1_000;
/** About 4 characters per token, as in token-estimate.ts. */
const CHARACTERS_PER_TOKEN = 4;
/** Share of a cut result's kept characters taken from its start (the rest from its end). */
const HEAD_SHARE = 0.6;

/** What fitting a turn's results needs. */
export interface TurnBudgetInput {
  /** The context window (tokens). */
  window: number;
  /** Estimated tokens of the system prompt and tool specifications. */
  fixedTokens: number;
  /** The view, its latest message being the assistant message whose calls are about to run. */
  history: History;
  /** Calls of that assistant message: they share the budget equally. */
  calls: number;
  /** Where full results are saved: `<sessionDirectory>/tool-results/<toolCallId>.txt`. */
  sessionDirectory: string;
  /** Values replaced by `[redacted:NAME]` in the saved files (the session host's secrets). */
  secrets: readonly SecretValue[];
}

/** Rewrites one outcome to fit its share of the turn's budget (see {@link turnResultBudget}). */
export type FitResult = (outcome: ToolCallOutcome) => Promise<ToolCallOutcome>;

/**
 * The per-turn budget of tool results: half the window, less what a compacted view must keep
 * beside them (system prompt and tools, the latest user message, the assistant message that
 * asked), shared equally by the turn's calls (at least {@link MIN_RESULT_CHARACTERS} each). A
 * result over its share keeps its start and end around `[… N lines (B bytes) omitted; full output
 * saved to PATH]`, as a command's long output does (tools/command-output.ts); the full text is saved
 * in the session folder (mode 0600). Equal shares keep the cut independent of the order in which
 * parallel calls complete.
 */
export function turnResultBudget(input: TurnBudgetInput): FitResult {
  const { history } = input;
  const budgetTokens =
    input.window * TURN_RESULTS_SHARE -
    input.fixedTokens -
    tokensOf(history.latestUserMessage) -
    tokensOf(history.latestAssistantMessage);
  const share = Math.max(
    MIN_RESULT_CHARACTERS,
    Math.floor((Math.max(0, budgetTokens) * CHARACTERS_PER_TOKEN) / Math.max(1, input.calls)),
  );
  return async (outcome) => {
    if (outcome.content.length <= share) {
      return outcome;
    }
    const savePath = join(
      input.sessionDirectory,
      "tool-results",
      `${safeFileName(outcome.toolCall.toolCallId)}.txt`,
    );
    const where = await save(savePath, outcome.content, input.secrets);
    return { ...outcome, content: cutResult(outcome.content, share, where) };
  };
}

/**
 * `text` cut to about `characters`: its start and end around a marker naming the line breaks and
 * bytes (UTF-8) left out (tools/command-output.ts `omittedMarker`) and `where` the full text is.
 * A command's output its runner cut already has such a marker: when the cut leaves it out, the
 * new marker counts what it counted in its place (the command's lines, not the marker's two line
 * breaks) and names where it said the whole output is, so the model and every face read the
 * command's counts.
 */
export function cutResult(text: string, characters: number, where: string): string {
  const room = Math.max(0, characters - where.length - 40);
  const head = text.slice(0, Math.floor(room * HEAD_SHARE));
  const { tail, startsLine } = tailFrom(text, text.slice(text.length - (room - head.length)));
  let omitted = Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail);
  let lineBreaks = lineBreaksIn(text, head.length, text.length - tail.length);
  let whole = where;
  const inner = findOmittedMarker(text);
  if (inner !== undefined && inner.start > head.length && inner.end < text.length - tail.length) {
    // The marker's line and the two line breaks around it stand for what it counted.
    omitted += inner.bytes - Buffer.byteLength(text.slice(inner.start - 1, inner.end + 1));
    lineBreaks += inner.lineBreaks - 2;
    whole = inner.where;
  }
  return `${head}\n${omittedMarker(lineBreaks, omitted, whole)}\n${markedTail(tail, !startsLine)}`;
}

/**
 * The tail kept of `text` from its last characters, `window`: from the start of its first line
 * that starts in the window (a line break before the window's last character), else the window
 * whole, `startsLine` false unless a line break comes just before it (then marked as starting
 * inside a line: tools/command-output.ts `markedTail`), so the faces know which line it begins with.
 */
function tailFrom(text: string, window: string): { tail: string; startsLine: boolean } {
  const before = text.length - window.length;
  if (window === "" || before === 0 || text[before - 1] === "\n") {
    return { tail: window, startsLine: true };
  }
  const lineBreak = window.indexOf("\n");
  if (lineBreak !== -1 && lineBreak < window.length - 1) {
    return { tail: window.slice(lineBreak + 1), startsLine: true };
  }
  return { tail: window, startsLine: false };
}

/** Writes `content` with its secrets redacted, as every file under the session folder is. */
async function save(
  path: string,
  content: string,
  secrets: readonly SecretValue[],
): Promise<string> {
  const redactor = new SecretStreamRedactor(secrets);
  const bytes = Buffer.concat([redactor.push(Buffer.from(content, "utf8")), redactor.end()]);
  try {
    await makeFolders(join(path, ".."), 0o700);
    await writeFile(path, bytes, { mode: 0o600 });
    return `full output saved to ${path}`;
  } catch (error) {
    return `the full output could not be saved: ${errorMessage(error)}`;
  }
}

function tokensOf(message: HistoryMessage | undefined): number {
  return message === undefined ? 0 : estimateMessageTokens(message);
}

/** A tool call id as a file name: ids come from the model and may hold any character. */
function safeFileName(toolCallId: string): string {
  const name = toolCallId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 100);
  return name === "" || name.startsWith(".") ? `call${name}` : name;
}
