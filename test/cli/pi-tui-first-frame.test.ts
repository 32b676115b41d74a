import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { piTuiFirstFrameAtOnce } from "../../scripts/pi-tui-first-frame-at-once.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI's pi-tui draws its first frame once the code that asked for it has
 * run, without waiting for a timer (scripts/pi-tui-first-frame-at-once.mjs). pi-tui's `tui.js` is
 * bundled twice here, as shipped and as the CLI's bundle rewrites it; each draws into a terminal
 * that records what is written. Ordered by the event loop's steps (a `process.nextTick`, then
 * timers until the frame is there), never by elapsed time.
 */

type Component = { render(width: number): string[]; invalidate(): void };
type Tui = {
  addChild(component: Component): void;
  start(): void;
  stop(): void;
  requestRender(force?: boolean): void;
};
type TuiModule = { TUI: new (terminal: RecordingTerminal) => Tui };

const TUI_MODULE = fileURLToPath(
  new URL("../../node_modules/@mariozechner/pi-tui/dist/tui.js", import.meta.url),
);

/** pi-tui's `Terminal`, 40×10, recording what is written. */
class RecordingTerminal {
  readonly written: string[] = [];
  start(): void {}
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.written.push(data);
  }
  get columns(): number {
    return 40;
  }
  get rows(): number {
    return 10;
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(lines: number): void {
    this.write(`<move ${lines}>`);
  }
  hideCursor(): void {
    this.write("<hide cursor>");
  }
  showCursor(): void {
    this.write("<show cursor>");
  }
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

/** A component drawing `lines`, which the test changes between frames. */
function linesComponent(lines: string[]): Component {
  return { render: () => [...lines], invalidate: () => undefined };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** Lets timers run (one `setTimeout` each) until `terminal` has written `text`. */
async function timersUntil(terminal: RecordingTerminal, text: string): Promise<number> {
  let timers = 0;
  while (!terminal.written.join("").includes(text)) {
    if (timers === 100) {
      throw new Error(`never written: ${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    timers++;
  }
  return timers;
}

/**
 * Starts a TUI of `module` with one component and draws two frames: what was written by the
 * `process.nextTick` after `start()`, and after each frame; and how many timers each frame took.
 */
async function twoFrames(module: TuiModule) {
  const terminal = new RecordingTerminal();
  const lines = ["input box", "Enter send"];
  const tui = new module.TUI(terminal);
  tui.addChild(linesComponent(lines));
  tui.start();
  await nextTick();
  const atNextTick = terminal.written.join("");
  const firstFrameTimers = await timersUntil(terminal, "Enter send");
  const firstFrame = terminal.written.join("");
  lines[0] = "input box, typed";
  tui.requestRender();
  await nextTick();
  const secondAtNextTick = terminal.written.join("") !== firstFrame;
  const secondFrameTimers = await timersUntil(terminal, "typed");
  tui.stop();
  return {
    atNextTick,
    firstFrameTimers,
    secondAtNextTick,
    secondFrameTimers,
    written: terminal.written,
  };
}

let directory: string;
let shipped: TuiModule;
let atOnce: TuiModule;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-pi-tui-first-frame-"));
  const shippedFile = await bundledModule(directory, "shipped", TUI_MODULE, []);
  const atOnceFile = await bundledModule(directory, "at-once", TUI_MODULE, [piTuiFirstFrameAtOnce]);
  shipped = (await import(pathToFileURL(shippedFile).href)) as TuiModule;
  atOnce = (await import(pathToFileURL(atOnceFile).href)) as TuiModule;
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("pi-tui's first frame", () => {
  test("as shipped, the first frame waits for a timer", async () => {
    const frames = await twoFrames(shipped);
    expect(frames.atNextTick).toContain("<hide cursor>");
    expect(frames.atNextTick).not.toContain("input box");
    expect(frames.firstFrameTimers).toBeGreaterThan(0);
    expect(frames.written.join("")).toMatch(/input box[^\n]*\r\nEnter send/);
  });

  test("rewritten, it is written by the next tick, with the same bytes; later frames as before", async () => {
    const before = await twoFrames(shipped);
    const after = await twoFrames(atOnce);
    expect(after.atNextTick).toContain("input box");
    expect(after.atNextTick).toContain("Enter send");
    expect(after.firstFrameTimers).toBe(0);
    // The second frame keeps the shipped throttle: a timer, never at the next tick.
    expect(after.secondAtNextTick).toBe(false);
    expect(after.secondFrameTimers).toBeGreaterThan(0);
    expect(before.secondAtNextTick).toBe(false);
    expect(after.written).toEqual(before.written);
  });
});
