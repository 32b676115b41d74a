/**
 * Which reply of a `-p` prompt is its answer (README, "Using it"): the last whole reply when the
 * prompt stops on it, whatever stopped it (`end_turn`, `--max-turns`, `task_complete`, …), as
 * `--quiet` and the JSON `result` give it; autopilot's `task_complete` summary when that reply has
 * no text; none for a failed or cancelled prompt. A reply followed by another turn is narration.
 * For terminal-renderer.ts, which writes the answer to stdout and narration to stderr.
 */
export class PromptAnswer {
  /** The last reply without tool calls: the final answer unless another turn follows. */
  #held: string | undefined;
  /** Text of the last whole reply, with tool calls or without (none once cut short). */
  #lastReply: string | undefined;
  /** The summary of autopilot's `task_complete`, once called. */
  #taskSummary: string | undefined;

  /**
   * A whole reply: held as the answer when it has no tool calls and was not cut short (a reply
   * cut short is no answer: README, "JSON output"). Returns what became narration: the reply held
   * before it, then this one if it is not held.
   */
  reply(content: string, toolCalls: boolean, interrupted: boolean): string[] {
    const narration = this.release();
    if (toolCalls || interrupted) {
      narration.push(content);
    } else {
      this.#held = content;
    }
    this.#lastReply = interrupted ? undefined : content;
    return narration;
  }

  /** Autopilot's `task_complete` summary: the answer if the last reply has no text. */
  taskComplete(summary: string): void {
    this.#taskSummary = summary;
  }

  /** The held reply was not the final answer (another turn, a nudge): it is narration, returned. */
  release(): string[] {
    const held = this.#held;
    this.#held = undefined;
    return held === undefined ? [] : [held];
  }

  /** The answer of the prompt that ended, taken (then none is held); undefined for none. */
  take(): string | undefined {
    const answer = this.#lastReply?.trim() ? this.#lastReply : this.#taskSummary;
    this.#held = undefined;
    this.#lastReply = undefined;
    this.#taskSummary = undefined;
    return answer === undefined || answer.trim() === "" ? undefined : answer;
  }

  /** A failed or cancelled prompt has no answer: the reply held is returned as narration. */
  drop(): string[] {
    const narration = this.release();
    this.#lastReply = undefined;
    this.#taskSummary = undefined;
    return narration;
  }
}
