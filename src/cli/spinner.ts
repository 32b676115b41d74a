import { monotonicMilliseconds } from "../llm/stall-watchdog.js";

/** Something to write to: `process.stdout` / `process.stderr` or a test buffer. */
export interface TextSink {
  write(text: string): unknown;
}

/** After this long without output (ms), the waiting line appears. */
const SHOW_AFTER_MS = 1000;
const FRAME_MS = 100;
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * A one-line "thinking… 3 s" on stderr while the model or a command takes longer than a second
 * (terminals only). Anything else written must erase it first: write through {@link guard}ed
 * streams, which do, so no print path can leave it on screen beside other text.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private label = "";
  private since = 0;
  private frame = 0;

  constructor(private readonly stderr: TextSink) {}

  /** Starts (or relabels) the waiting line; it shows once {@link SHOW_AFTER_MS} have passed. */
  start(label: string): void {
    // One timer: a second start without a stop left the first drawing on, past every later stop
    // (the waiting line over a permission question's `> `: a fresh user's trial).
    clearInterval(this.timer);
    this.clear();
    this.label = label;
    this.since = monotonicMilliseconds();
    this.timer = setInterval(() => this.draw(), FRAME_MS);
    this.timer.unref();
  }

  /** Removes the line and stops. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  /**
   * `stream` with every `write` preceded by erasing the waiting line; everything else passes
   * through to `stream` itself.
   */
  guard<Stream extends NodeJS.WritableStream>(stream: Stream): Stream {
    return new Proxy(stream, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") {
          return value;
        }
        if (property !== "write") {
          return value.bind(target);
        }
        return (...args: unknown[]) => {
          this.clear();
          return value.apply(target, args);
        };
      },
    });
  }

  /** Erases the line if it is shown (it comes back at the next frame while running). */
  clear(): void {
    if (this.shown) {
      this.stderr.write("\r\u001b[K");
      this.shown = false;
    }
  }

  private draw(): void {
    const elapsed = monotonicMilliseconds() - this.since;
    if (elapsed < SHOW_AFTER_MS) {
      return;
    }
    this.frame = (this.frame + 1) % FRAMES.length;
    this.stderr.write(
      `\r\u001b[K\u001b[2m${FRAMES[this.frame]} ${this.label}… ${Math.floor(elapsed / 1000)} s\u001b[0m`,
    );
    this.shown = true;
  }
}
