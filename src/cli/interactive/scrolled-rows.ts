import { type Component, Container, type TUI } from "@mariozechner/pi-tui";

/**
 * pi-tui's row bookkeeping (`TUI` in its dist/tui.js, 0.73.1 as pinned in package.json), private
 * in its types: the rows of the last frame (`previousLines`, with pi-tui's reset codes appended)
 * and the places counted in them from the first row it drew (the cursor's, the first row on the
 * screen, the most rows drawn), read by `doRender` before each frame. {@link rowState} checks
 * their shapes; test/cli/screen-scrolled-rows.test.ts fails when they change.
 */
export interface PiTuiRowState {
  previousLines: string[];
  previousWidth: number;
  previousHeight: number;
  cursorRow: number;
  hardwareCursorRow: number;
  maxLinesRendered: number;
  previousViewportTop: number;
  doRender(): void;
}

const COUNTED_FIELDS = [
  "previousWidth",
  "previousHeight",
  "cursorRow",
  "hardwareCursorRow",
  "maxLinesRendered",
  "previousViewportTop",
] as const;

/**
 * `tui`'s private row bookkeeping, or `undefined` when it is not what {@link PiTuiRowState} says
 * (another pi-tui): then nothing is taken out of pi-tui's frames.
 */
export function rowState(tui: TUI): PiTuiRowState | undefined {
  const fields = tui as unknown as Record<string, unknown>;
  const shaped =
    Array.isArray(fields.previousLines) &&
    typeof fields.doRender === "function" &&
    COUNTED_FIELDS.every((name) => typeof fields[name] === "number");
  return shaped ? (tui as unknown as PiTuiRowState) : undefined;
}

/**
 * The rows that have scrolled above the screen, taken out of what pi-tui compares and keeps on
 * each frame. pi-tui draws a frame by taking every row of the view, appending its reset codes to
 * each, comparing them all with the last frame's and keeping both: a frame cost in proportion to
 * the whole transcript, and a long streamed answer cost the square of its length (memory26.md).
 * A row above the screen is never rewritten by pi-tui: a change there makes it clear the terminal
 * and its scrollback and draw every row again. So after each frame the rows above pi-tui's screen
 * are kept here (as the view drew them) and pi-tui's bookkeeping is shifted to count from the
 * first row below them; the next frame hands pi-tui only the rows after them (the peers' rule:
 * Codex writes finished history above its viewport, Claude Code's Ink has `Static`).
 *
 * All the rows are handed to pi-tui again, with its full redraw, when a kept row is no longer the
 * view's (a block above the screen changed, the transcript was cleared), the width or height
 * changed (pi-tui redraws everything then too; also on Termux, where it would not for a height
 * change), pi-tui was asked for a full redraw (`requestRender(true)`), or an overlay is shown.
 * What the terminal shows is the same as without it.
 */
export class ScrolledRows {
  /** The rows above the screen, as the view drew them (without pi-tui's reset codes). */
  private rows: string[] = [];
  private width = 0;
  private height = 0;
  /** The rows for the frame being drawn, handed to pi-tui by {@link take}. */
  private handed: string[] | undefined;

  private constructor(
    private readonly tui: TUI,
    private readonly state: PiTuiRowState,
  ) {}

  /**
   * Takes over `tui`'s frames: each one renders every row with `renderAll` (width in columns)
   * before pi-tui draws, and `fitToWidth` readies the rows handed to pi-tui (`first`: the index
   * of the first of them among all rows); the tui's `render` must answer with {@link take}.
   * @returns `undefined` when pi-tui's bookkeeping is not the pinned version's ({@link rowState}).
   */
  static attach(
    tui: TUI,
    renderAll: (width: number) => string[],
    fitToWidth: (rows: string[], width: number, first: number) => string[],
  ): ScrolledRows | undefined {
    const state = rowState(tui);
    if (state === undefined) {
      return undefined;
    }
    const scrolled = new ScrolledRows(tui, state);
    const draw = state.doRender.bind(tui);
    state.doRender = () => {
      const { columns, rows } = tui.terminal;
      const all = renderAll(columns);
      const handed = scrolled.frame(all, columns, rows);
      scrolled.handed = fitToWidth(handed, columns, all.length - handed.length);
      try {
        draw();
      } finally {
        scrolled.handed = undefined;
      }
      scrolled.scroll(all, columns, rows);
    };
    return scrolled;
  }

  /** The rows pi-tui is to draw in the frame under way, or `undefined` outside a frame. */
  take(): string[] | undefined {
    return this.handed;
  }

  /** The rows of `all` to hand pi-tui: those below the kept ones, or all of them (see the class). */
  private frame(all: readonly string[], width: number, height: number): string[] {
    const count = this.rows.length;
    if (count === 0) {
      return all.slice();
    }
    const unchanged =
      width === this.width &&
      height === this.height &&
      this.state.previousWidth === width &&
      !this.tui.hasOverlay() &&
      startsWith(all, this.rows);
    if (unchanged) {
      return all.slice(count);
    }
    this.rows = [];
    // pi-tui's own way to ask for a full redraw (its requestRender(true)): the width it compares
    // with is not a width, so it clears the terminal and its scrollback and writes every row.
    this.state.previousWidth = -1;
    return all.slice();
  }

  /** After a frame of `all` rows: the rows above pi-tui's screen are kept here, out of pi-tui's. */
  private scroll(all: readonly string[], width: number, height: number): void {
    const state = this.state;
    const above = state.previousViewportTop;
    const count = this.rows.length;
    if (above <= 0 || count + above > all.length || this.tui.hasOverlay()) {
      return;
    }
    for (let index = count; index < count + above; index++) {
      this.rows.push(all[index] ?? "");
    }
    state.previousLines = state.previousLines.slice(above);
    state.cursorRow -= above;
    state.hardwareCursorRow -= above;
    state.maxLinesRendered = Math.max(0, state.maxLinesRendered - above);
    state.previousViewportTop = 0;
    this.width = width;
    this.height = height;
  }
}

/** Whether `rows` begins with every row of `start`, in order. */
function startsWith(rows: readonly string[], start: readonly string[]): boolean {
  if (rows.length < start.length) {
    return false;
  }
  for (let index = 0; index < start.length; index++) {
    if (rows[index] !== start[index]) {
      return false;
    }
  }
  return true;
}

/**
 * A frame's rows being written: `rows[0 … count)` are this frame's; what lies beyond is the
 * frame before's, overwritten in place. Writing into last-but-one frame's array instead of
 * making a new one (pi-tui's `Container.render` concatenates every row of every view anew) keeps
 * a long transcript's frames from making an array of all its rows each time (bench/notes/memory29.md).
 */
export interface RowSink {
  rows: string[];
  count: number;
}

/** A view that writes its rows (those its `render` answers) into a frame's {@link RowSink}. */
export interface RowsWriter {
  renderInto(width: number, sink: RowSink): void;
}

/** Appends `rows` to `sink`. */
export function putRows(sink: RowSink, rows: readonly string[]): void {
  for (const row of rows) {
    sink.rows[sink.count++] = row;
  }
}

/**
 * Writes the rows `component.render(width)` answers into `sink`: a {@link RowsWriter} writes its
 * own, a container whose render is pi-tui's plain concatenation has each child write its rows, any
 * other view's are copied from its render.
 */
export function renderRowsInto(component: Component, width: number, sink: RowSink): void {
  if (typeof (component as Partial<RowsWriter>).renderInto === "function") {
    (component as Component & RowsWriter).renderInto(width, sink);
  } else if (component instanceof Container && component.render === Container.prototype.render) {
    for (const child of component.children) {
      renderRowsInto(child, width, sink);
    }
  } else {
    putRows(sink, component.render(width));
  }
}
