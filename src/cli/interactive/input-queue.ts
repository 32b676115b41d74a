import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { Theme } from "./theme.js";

/** What the queue needs of the controller: run one input, and the work running now. */
export interface InputRunner {
  /** Runs one input; resolves when its prompt, command or shell run has ended. */
  submit(text: string): Promise<void>;
  /** Resolves when what runs now (a prompt, a command, a shell run) has ended; at once if nothing. */
  idle(): Promise<void>;
}

/**
 * The inputs sent (Enter) on the interactive screen, run one after the other: an input sent while
 * a prompt is still running waits here, shown dimmed above the input box as `queued › text`, and
 * runs as the next prompt once the session is idle, as other agents' terminals do. Drawn as the
 * queued lines (none: nothing).
 */
export class InputQueue implements Component {
  private readonly pending: string[] = [];
  private draining = false;

  /** @param changed called when the queued lines change (the screen redraws). */
  constructor(
    private readonly theme: Theme,
    private readonly runner: InputRunner,
    private readonly changed: () => void,
  ) {}

  /** Runs `text` once what runs before it has ended (at once when idle); blank input is ignored. */
  send(text: string): void {
    if (text.trim() === "") {
      return;
    }
    this.pending.push(text);
    this.changed();
    // Never rejects: the runner's submit catches what an input's run throws (controller.ts).
    void this.drain();
  }

  /** Removes the inputs still waiting and returns them, oldest first (e.g. after a cancel). */
  take(): string[] {
    const taken = this.pending.splice(0);
    if (taken.length > 0) {
      this.changed();
    }
    return taken;
  }

  invalidate(): void {}

  render(width: number): string[] {
    return this.pending.map((text) => {
      const [first = "", ...more] = text.split("\n");
      const shown = more.length === 0 ? first : `${first} (+${more.length} lines)`;
      return truncateToWidth(this.theme.dim(`queued › ${shown}`), width);
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) {
      return;
    }
    this.draining = true;
    try {
      for (;;) {
        await this.runner.idle();
        const next = this.pending.shift();
        if (next === undefined) {
          return;
        }
        this.changed();
        await this.runner.submit(next);
      }
    } finally {
      this.draining = false;
    }
  }
}
