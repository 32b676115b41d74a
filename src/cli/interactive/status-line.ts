import { type Component, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import type { SessionMode } from "../../session/commands.js";
import { compactCount, costText, type UsageTotals } from "../../session/usage-totals.js";
import type { Theme } from "./theme.js";

/** What the status line shows; the face updates it and asks for a render. */
export interface StatusState {
  model: string;
  mode: SessionMode;
  /**
   * Whether every tool runs unasked in the modes that do not ask (the run's permission mode
   * `full-access`, `--allow-all-tools`; `/mode` changes the session mode, not this): the line then
   * says `full-access`, not the sandboxed `auto` ({@link modeWord}).
   */
  fullAccess?: boolean;
  /** The sandbox policy confining the session's commands (e.g. `workspace-write`); absent: none. */
  sandbox?: string | undefined;
  usage: UsageTotals;
  /** Tokens the model's context holds, when known. */
  contextWindow: number | undefined;
  /** `Date.now()` when the running prompt started; absent when idle. */
  busySince?: number;
  /** A one-off hint replacing the key help until the next input (e.g. "Ctrl-C again to exit"). */
  hint?: string;
  /**
   * The keys of a question or picker that is open (`y/n or ↑/↓ select · Enter confirms`), shown
   * instead of the input box's while it is, with `modalEscape` after them.
   */
  modalKeys?: string;
  /**
   * What Esc does there while no prompt runs (`Esc no`), or while the running prompt waits for
   * the question before it begins (`promptWaits`); while one runs, Esc cancels it.
   */
  modalEscape?: string;
  /** Whether the running prompt has not begun: it waits for the open question (controller.ts). */
  promptWaits?: boolean;
}

/**
 * The mode as the status line names it: the session mode, but `full-access` for `auto` and
 * `autopilot (full-access)` for `autopilot` when every tool runs unasked (`--allow-all-tools`),
 * so that the line never reads as the sandboxed `auto` then (trial r3s36 P3-1).
 */
export function modeWord(mode: SessionMode, fullAccess: boolean): string {
  if (!fullAccess || mode === "ask") {
    return mode;
  }
  return mode === "auto" ? "full-access" : `${mode} (full-access)`;
}

const KEYS = "Enter send · Ctrl-J newline · / commands · @ file · ! shell · Ctrl-D exit";

/**
 * The columns the left part keeps before the tokens on the right are dropped: room for what is
 * happening, `working 999s`, and the `...` pi-tui's `truncateToWidth` ends a cut text with (its
 * `· Esc cancels` and the key help are cut before the tokens go).
 */
const LEFT_ROOM = "working 999s...".length;

/**
 * The line under the input box: on the left what is happening (working for N s, or the keys),
 * on the right model, mode, sandbox policy (when one confines commands), context used (%),
 * tokens and cost. Cut to the terminal's width.
 */
export class StatusLine implements Component {
  /** Called once the frame being drawn (which draws this line) is written. */
  private drawnWaiters: Array<() => void> = [];

  constructor(
    private readonly theme: Theme,
    readonly state: StatusState,
  ) {}

  invalidate(): void {}

  /**
   * Calls `then` after the next frame is written: every frame draws this line, and pi-tui writes
   * a frame in the same turn as it draws its lines, so a microtask queued here runs after it.
   */
  whenDrawn(then: () => void): void {
    this.drawnWaiters.push(then);
  }

  render(width: number): string[] {
    const waiters = this.drawnWaiters.splice(0);
    if (waiters.length > 0) {
      queueMicrotask(() => {
        for (const waiter of waiters) {
          waiter();
        }
      });
    }
    const { theme, state } = this;
    const left = state.hint ?? activity(state);
    const painted =
      state.busySince === undefined && state.hint === undefined ? theme.dim : theme.accent;
    const leftRoom =
      state.hint === undefined ? LEFT_ROOM : Math.max(LEFT_ROOM, visibleWidth(state.hint));
    const right = this.fittingRight(width, leftRoom);
    const room = width - visibleWidth(right) - 2;
    const shownLeft = truncateToWidth(left, Math.max(0, room));
    const gap = " ".repeat(Math.max(1, width - visibleWidth(shownLeft) - visibleWidth(right)));
    return [truncateToWidth(`${painted(shownLeft)}${gap}${theme.dim(right)}`, width)];
  }

  /**
   * The right part, losing detail as the line narrows, in this order (README, "Status line"):
   * the provider prefix (the opening line names the whole model) once the key help does not fit
   * beside it whole; then the key help, cut from its end down to `leftRoom` ({@link LEFT_ROOM},
   * or a one-off hint's whole width: what to do next); then the tokens. The context used and the
   * cost stay (a line narrower than them is cut at its end). The prefix is judged against the
   * key help whatever the left shows, so the model is named one way at a width, idle or working
   * (a fresh user's trial saw `fake` idle and `openai-compatible:fake` while working, the shorter
   * left leaving room for the prefix); trial r3s46 F6 saw the tokens dropped at 100 to 150
   * columns to keep the key help whole.
   */
  private fittingRight(width: number, leftRoom: number): string {
    const leaves = (right: string, room: number) => width - visibleWidth(right) - 2 >= room;
    const whole = this.right(true, true);
    if (leaves(whole, visibleWidth(KEYS))) {
      return whole;
    }
    const withTokens = this.right(false, true);
    return leaves(withTokens, leftRoom) ? withTokens : this.right(false, false);
  }

  private right(provider: boolean, tokens: boolean): string {
    const { state } = this;
    const { usage } = state;
    const model = provider ? state.model : state.model.slice(state.model.indexOf(":") + 1);
    return [
      model,
      modeWord(state.mode, state.fullAccess === true),
      ...(state.sandbox === undefined ? [] : [state.sandbox]),
      contextText(usage.contextTokens, state.contextWindow),
      ...(tokens
        ? [
            `${compactCount(usage.inputTokens ?? 0)} in ${compactCount(usage.outputTokens ?? 0)} out`,
          ]
        : []),
      // Partial (`$0.0024 for 1 of 2 requests`) after a switch to a model with no price, as `/usage`.
      ...(usage.costKnown ? [costText(usage)] : []),
    ].join(" · ");
  }
}

/**
 * The left part when no hint is shown: `working 3s` while a prompt runs, then the keys of what has
 * them (an open question's or picker's, else the input box's), then what Esc does: while a prompt
 * runs it cancels it, whatever is open (terminal-face.ts takes Esc before a question sees it),
 * unless the prompt waits for the question to begin: then Esc is the question's.
 */
function activity(state: StatusState): string {
  const working =
    state.busySince === undefined
      ? undefined
      : `working ${((Date.now() - state.busySince) / 1000).toFixed(0)}s`;
  if (state.modalKeys !== undefined) {
    const questionHasEsc = working === undefined || state.promptWaits === true;
    const escapeKey = questionHasEsc ? (state.modalEscape ?? "Esc cancels") : "Esc cancels";
    return [...(working === undefined ? [] : [working]), state.modalKeys, escapeKey].join(" · ");
  }
  return working === undefined ? KEYS : `${working} · Esc cancels`;
}

function contextText(tokens: number | undefined, window: number | undefined): string {
  if (tokens === undefined) {
    return "ctx 0%";
  }
  if (window === undefined) {
    return `ctx ${compactCount(tokens)}`;
  }
  return `ctx ${Math.min(100, Math.round((tokens / window) * 100))}%`;
}
