/**
 * One tmux control-mode client (`tmux -C attach`, tmux(1) "CONTROL MODE") on a test terminal's
 * session, for test/support/interactive-terminal.ts's waits: it captures the pane through the
 * client's stdin (no `tmux` process spawned per look: about 19 ms of CPU each, measured in
 * bench/notes/suite36.md) and says when the pane has written something (`%output`), so a wait
 * looks again when the screen may have changed instead of every 50 ms. It also follows the pane's
 * synchronized updates (`CSI ? 2026 h` … `CSI ? 2026 l`, in which pi-tui wraps each frame it
 * writes), so a look can tell a screen caught between two writes of one frame.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** One command sent and not yet answered: its reply's lines so far, and where the reply goes. */
interface PendingCommand {
  lines: string[];
  /** The `<time> <number>` of its reply's `%begin`, once that came: its `%end` repeats them. */
  block: string | undefined;
  /** Whether a synchronized update was open when its reply began (set at its `%begin`). */
  midFrame: boolean;
  resolve: (reply: ControlReply) => void;
  reject: (error: Error) => void;
}

/** A command's reply, and whether tmux ran it inside one of the pane's synchronized updates. */
export interface ControlReply {
  lines: string[];
  /**
   * True when the pane had begun a synchronized update (`CSI ? 2026 h`) and not ended it when tmux
   * ran the command: a capture then shows a frame half drawn. Exact, since tmux writes a control
   * client's `%output` and command replies in one ordered queue, and parses each read of the pane
   * into the screen as it queues its `%output` (tmux 3.2+'s control.c).
   */
  midFrame: boolean;
}

const FRAME_BEGIN = String.raw`\033[?2026h`;
const FRAME_END = String.raw`\033[?2026l`;

/**
 * The control client of session `target` on the tmux server `socketName`; started by {@link attach}
 * or the first {@link run}, stopped by {@link close} or when the session ends (then {@link run} rejects
 * and the caller looks another way).
 */
export class TerminalControl {
  private client: ChildProcessWithoutNullStreams | undefined;
  private ended: Error | undefined;
  private readonly pending: PendingCommand[] = [];
  /** How many `%output` notifications came: a wait compares it with the count at its capture. */
  private outputs = 0;
  private readonly outputWaiters = new Set<() => void>();
  /** Whether the pane's last synchronized update is open, and the end of its last `%output`. */
  private frameOpen = false;
  private outputTail = "";

  constructor(
    private readonly socketName: string,
    private readonly target: string,
  ) {}

  /** How many times the pane has written since the client started (grows; compare, not read). */
  get outputCount(): number {
    return this.outputs;
  }

  /**
   * The reply to `tmux <command>` (its words, each quoted for tmux's parser).
   * @throws (rejects) when tmux answers `%error`, or the client could not start or has ended.
   */
  run(words: readonly string[]): Promise<ControlReply> {
    const client = this.started();
    return new Promise((resolve, reject) => {
      if (this.ended !== undefined) {
        reject(this.ended);
        return;
      }
      this.pending.push({ lines: [], block: undefined, midFrame: false, resolve, reject });
      client.stdin.write(`${words.map(quote).join(" ")}\n`);
    });
  }

  /**
   * Resolves once the pane writes after the `since` {@link outputCount} (at once when it already
   * has), or after `atMostMs` whatever happened (a screen may change without output, by a resize).
   */
  outputAfter(since: number, atMostMs: number): Promise<void> {
    if (this.outputs > since || this.ended !== undefined) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.outputWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, atMostMs);
      this.outputWaiters.add(done);
    });
  }

  /** Starts the client (else the first {@link run} does): it sees `%output` from then on. */
  attach(): void {
    this.started();
  }

  /** Stops the client (its end is no error for the commands already answered). */
  close(): void {
    this.finish(new Error("the terminal's control client was closed"));
    this.client?.stdin.end();
    this.client?.kill();
  }

  private started(): ChildProcessWithoutNullStreams {
    if (this.client !== undefined) {
      return this.client;
    }
    const client = spawn("tmux", ["-L", this.socketName, "-C", "attach", "-t", this.target]);
    this.client = client;
    // A test that never closes its terminal still ends: the waits' own timers keep it running.
    client.unref();
    for (const stream of [client.stdin, client.stdout, client.stderr]) {
      (stream as unknown as { unref?: () => void }).unref?.();
    }
    client.stdin.on("error", () => undefined);
    client.stderr.resume();
    client.on("error", (error) => this.finish(error));
    client.on("close", () => this.finish(new Error("the terminal's control client ended")));
    createInterface({ input: client.stdout }).on("line", (line) => this.read(line));
    return client;
  }

  /** One line of the client's stdout: a reply's guard or body line, or a notification. */
  private read(line: string): void {
    const command = this.pending[0];
    if (command?.block !== undefined) {
      const end = /^%(end|error) (\d+ \d+) 1$/.exec(line);
      if (end === null || end[2] !== command.block) {
        command.lines.push(line);
        return;
      }
      this.pending.shift();
      if (end[1] === "end") {
        command.resolve({ lines: command.lines, midFrame: command.midFrame });
      } else {
        command.reject(new Error(`tmux: ${command.lines.join("\n")}`));
      }
    } else if (command !== undefined && /^%begin \d+ \d+ 1$/.test(line)) {
      // Flag 1: a reply to this client's own command (0: the attach's, before any of ours).
      command.block = line.slice("%begin ".length, -" 1".length);
      command.midFrame = this.frameOpen;
    } else if (line.startsWith("%output ")) {
      this.outputs += 1;
      this.followFrames(line);
      for (const waiter of [...this.outputWaiters]) {
        waiter();
      }
    } else if (line.startsWith("%exit")) {
      this.finish(new Error(`the terminal's control client exited: ${line}`));
    }
  }

  /**
   * Follows the synchronized updates in one `%output %<pane> <bytes>` line, whose bytes tmux writes
   * with control characters and `\` as octal escapes (`\033` for ESC; tmux(1) "CONTROL MODE").
   * The last write's end is kept, for a marker split between two reads of the pane.
   */
  private followFrames(line: string): void {
    const bytes = this.outputTail + line.slice(line.indexOf(" ", "%output ".length) + 1);
    const begin = bytes.lastIndexOf(FRAME_BEGIN);
    const end = bytes.lastIndexOf(FRAME_END);
    if (begin !== end) {
      this.frameOpen = begin > end;
    }
    this.outputTail = bytes.slice(-(FRAME_BEGIN.length - 1));
  }

  private finish(error: Error): void {
    this.ended ??= error;
    for (const command of this.pending.splice(0)) {
      command.reject(this.ended);
    }
    for (const waiter of [...this.outputWaiters]) {
      waiter();
    }
  }
}

/** `word` as one argument of a tmux command line (tmux(1) "PARSING SYNTAX": single quotes). */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
