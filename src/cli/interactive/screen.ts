import { appendFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Component,
  Container,
  type Editor,
  ProcessTerminal,
  type Terminal,
  TUI,
  truncateToWidth,
  visibleWidth,
} from "@mariozechner/pi-tui";
import type { CommandDefinition } from "../../session/commands.js";
import type { SessionSummary } from "../../session/session-store.js";
import { PromptCompletion, PromptEditor, pasteGate } from "./completion.js";
import { renderRowsInto, ScrolledRows } from "./scrolled-rows.js";
import { StatusLine, type StatusState } from "./status-line.js";
import type { Theme } from "./theme.js";

/** Columns of space left and right of the text in the input box. */
const EDITOR_PADDING = 1;

/** How long {@link Screen.lastFrame} waits for a frame at most (ms). */
const LAST_FRAME_WAIT_MS = 500;

/** Escape sequences that give a terminal back as we found it: cursor shown, paste mode off. */
const RESTORE_SEQUENCE = "\u001b[?2004l\u001b[?25h";

/**
 * The interactive screen: the conversation, a slot for a question or picker, the input box and
 * the status line, drawn by pi-tui (differential rendering, bracketed paste). Knows nothing of
 * sessions beyond what it is told to show.
 */
export class Screen {
  readonly tui: TUI;
  /**
   * The conversation's place, at the top: the transcript is put in it once the session is open
   * (screen-view.ts), so that its modules (the session model, the Markdown renderer) load after
   * the input box is drawn (issue 26).
   */
  readonly conversation = new Container();
  readonly editor: Editor;
  readonly status: StatusLine;
  /** Above the input box: the inputs sent while a prompt runs, waiting their turn. */
  readonly queue = new Container();
  private readonly slot = new Container();
  private modal: Component | undefined;
  private stopped = false;

  constructor(
    readonly theme: Theme,
    status: StatusState,
    commands: readonly CommandDefinition[],
    cwd: string,
    home?: string,
  ) {
    // A row wider than the terminal is cut there and recorded under `home` (GuardedTUI below).
    const terminal = new ProcessTerminal();
    // Each bracketed paste whole in one piece (memory: bench/notes/memory29.md).
    gateStdinReads(terminal, pasteGate);
    // Keys typed before the screen took the terminal, Enter included.
    gateStdinReads(terminal, typedAheadGate);
    this.tui = new GuardedTUI(terminal, home);
    this.editor = new PromptEditor(
      this.tui,
      theme.editor,
      { paddingX: EDITOR_PADDING },
      // The menu is laid out in the editor's width: the terminal's less its padding.
      new PromptCompletion(commands, cwd, () => terminal.columns - 2 * EDITOR_PADDING),
    );
    this.status = new StatusLine(theme, status);
    this.tui.addChild(this.conversation);
    this.tui.addChild(this.slot);
    this.tui.addChild(this.queue);
    this.tui.addChild(this.editor);
    this.tui.addChild(this.status);
    this.tui.setFocus(this.editor);
  }

  /** Takes over the terminal (raw mode, paste mode) and draws. */
  start(): void {
    this.tui.start();
    this.tui.requestRender();
  }

  /**
   * Takes everything drawn off the screen (the input box, the status line): the next frame is
   * empty, so pi-tui clears the lines it drew. For a face that fails after drawing, before
   * {@link stop}, so that its error is not printed under a frame nobody can use.
   */
  erase(): void {
    this.tui.clear();
    this.tui.requestRender();
  }

  /** Gives the terminal back. Safe to call twice, and from an `exit` handler. */
  stop(): void {
    if (this.stopped) {
      return;
    }
    this.stopped = true;
    try {
      this.tui.stop();
    } finally {
      restoreTerminal();
    }
  }

  render(): void {
    this.tui.requestRender();
  }

  /**
   * Draws what changed and resolves once that frame is written, or after
   * {@link LAST_FRAME_WAIT_MS} when no frame comes (a terminal that is gone). pi-tui draws at
   * most every 16 ms, on a timer that {@link stop} clears: a face that stopped right after a
   * change (a prompt ended by a signal) left the frame before it on the screen, "working".
   */
  lastFrame(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, LAST_FRAME_WAIT_MS);
      this.status.whenDrawn(() => {
        clearTimeout(timer);
        resolve();
      });
      this.render();
    });
  }

  /** Whether a question or picker is open (it has every key). */
  get hasModal(): boolean {
    return this.modal !== undefined;
  }

  /**
   * Shows `component` above the input box, its `keys` and what Esc does there (`escapeKey`) in the
   * status line (status-line.ts), until {@link closeModal}.
   */
  openModal(component: Component, keys: string, escapeKey: string): void {
    this.setModalKeys(keys, escapeKey);
    this.slot.clear();
    this.slot.addChild(component);
    this.modal = component;
    this.tui.setFocus(component);
    this.render();
  }

  /** The open question's keys changed (the input box took them, or gave them back). */
  setModalKeys(keys: string, escapeKey: string): void {
    Object.assign(this.status.state, { modalKeys: keys, modalEscape: escapeKey });
  }

  closeModal(): void {
    delete this.status.state.modalKeys;
    delete this.status.state.modalEscape;
    this.slot.clear();
    this.modal = undefined;
    this.tui.setFocus(this.editor);
    this.render();
  }

  /**
   * A picker of sessions (session-picker.ts, loaded when first needed), its keys in the status
   * line. @returns the chosen session's id, or `undefined` when dismissed with Esc.
   */
  async pickSession(
    sessions: readonly SessionSummary[],
    title: string,
  ): Promise<string | undefined> {
    const { sessionPicker } = await import("./session-picker.js");
    return new Promise((resolve) => {
      const picker = sessionPicker(sessions, this.theme, title, (sessionId) => {
        this.closeModal();
        resolve(sessionId);
      });
      this.openModal(picker, "type to filter · ↑/↓ choose · Enter opens", "Esc cancels");
    });
  }
}

/** Whether `data` is typed text (no escape sequence, no control character). */
export function isPrintable(data: string): boolean {
  return data !== "" && [...data].every((character) => character >= " " && character !== "\u007f");
}

/** Raw mode off and the cursor shown, whatever state the screen was left in (a crash, a signal). */
export function restoreTerminal(): void {
  try {
    if (process.stdin.isTTY && process.stdin.isRaw) {
      process.stdin.setRawMode(false);
    }
    process.stdout.write(RESTORE_SEQUENCE);
  } catch {
    // The terminal is gone; nothing to restore.
  }
}

/**
 * The file under `$TURNLOOP_HOME` where the screen records a row it had to cut (mode 0600). It
 * holds widths and places only, never the row's text, so there is nothing in it to redact.
 */
export const SCREEN_ERRORS_FILE = "screen-errors.log";

/** Records written per process at most: a view that is wrong on every frame writes a few lines. */
const RECORDS_PER_PROCESS = 20;

/**
 * Display columns one UTF-16 code unit takes at most in pi-tui's count (a tab is three): a row of
 * at most a third of the width in code units fits without being measured.
 */
const MOST_COLUMNS_PER_CODE_UNIT = 3;

/**
 * pi-tui's `TUI` with a safety net at our edge. Every view cuts or wraps its rows to the screen's
 * width by display columns (pi-tui's `visibleWidth`); a row that is still wider, which pi-tui
 * answers by writing the whole screen to `~/.pi/agent/pi-crash.log` and throwing out of its
 * render (the process ended), is cut at the width instead (`truncateToWidth`) and recorded in
 * {@link SCREEN_ERRORS_FILE}. A view whose render throws leaves the last frame on the screen and
 * is recorded the same way: no render error ends the process.
 */
export class GuardedTUI extends TUI {
  private records = 0;
  private lastFrame: string[] = [];
  /** The frame before the last one's array, written over by the next frame (scrolled-rows.ts RowSink). */
  private spareFrame: string[] = [];
  /** The rows above the screen, out of pi-tui's frames (scrolled-rows.ts). */
  readonly scrolled: ScrolledRows | undefined;

  /** @param home `$TURNLOOP_HOME`, where the record goes; `undefined`: nothing is recorded. */
  constructor(
    terminal: Terminal,
    private readonly home: string | undefined,
  ) {
    super(terminal);
    this.scrolled = ScrolledRows.attach(
      this,
      (width) => this.renderAll(width),
      (rows, width, first) => this.fit(rows, width, first),
    );
  }

  /** In a frame, the rows below those scrolled above the screen; else every row. */
  override render(width: number): string[] {
    // A copy: pi-tui changes what it is handed, and the frame's array is used again.
    return this.scrolled?.take() ?? this.fit(this.renderAll(width).slice(), width, 0);
  }

  /** Every row of the views, written into the frame before last's array; on a failure the last frame's. */
  private renderAll(width: number): string[] {
    const sink = { rows: this.spareFrame, count: 0 };
    try {
      for (const child of this.children) {
        renderRowsInto(child, width, sink);
      }
      sink.rows.length = sink.count;
      this.spareFrame = this.lastFrame;
      this.lastFrame = sink.rows;
    } catch (error) {
      this.record(`a view failed to render at ${width} columns: ${errorName(error)}`);
    }
    return this.lastFrame;
  }

  /** `rows` (the view's from row `first` on), each cut to `width` (in place). */
  private fit(rows: string[], width: number, first: number): string[] {
    return fitRows(rows, width, (row, columns) =>
      this.record(`row ${first + row} was ${columns} columns wide at ${width} columns; cut`),
    );
  }

  private record(text: string): void {
    if (this.home === undefined || this.records >= RECORDS_PER_PROCESS) {
      return;
    }
    this.records++;
    try {
      appendFileSync(join(this.home, SCREEN_ERRORS_FILE), `${new Date().toISOString()} ${text}\n`, {
        mode: 0o600,
      });
    } catch {
      // The record is a help for fixing the view; the screen goes on without it.
    }
  }
}

/**
 * `lines` with every row wider than `width` display columns cut to it (in place); `wide` is told
 * each such row's index and width.
 */
export function fitRows(
  lines: string[],
  width: number,
  wide: (row: number, columns: number) => void,
): string[] {
  for (const [index, line] of lines.entries()) {
    if (line.length * MOST_COLUMNS_PER_CODE_UNIT <= width) {
      continue;
    }
    const columns = visibleWidth(line);
    if (columns > width) {
      wide(index, columns);
      lines[index] = truncateToWidth(line, width, "");
    }
  }
  return lines;
}

/** An error's class, for the record: its message may quote the conversation. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * Keys typed while turnloop starts, before the input box exists (`turnloop` Enter, then the first
 * prompt and Enter, as one types them), reach the terminal while it is still in cooked mode, whose
 * ICRNL (termios(3)) turns each Enter's CR into LF as the key arrives; raw mode then hands that
 * LF over as Ctrl-J, a new line in the input box: the prompt stayed unsent (trial 38 F1).
 *
 * `pass` given each read of the terminal's stdin, the first read after the screen took the
 * terminal, which holds what was typed before, with each LF as the CR that Enter sends
 * in raw mode: every key typed before the input box existed counts, in order, Enter included. A
 * Ctrl-J typed before then was a line end too (cooked mode ends a line on it). Later reads are
 * passed as they come.
 */
function typedAheadGate(pass: (data: string) => void): (data: string) => void {
  let first = true;
  return (data: string) => {
    if (first) {
      first = false;
      pass(data.replaceAll("\n", "\r"));
      return;
    }
    pass(data);
  };
}

/**
 * Puts `gate` between `terminal`'s stdin reads (pi-tui's `ProcessTerminal`, 0.73.1 as pinned) and
 * its stdin buffer. Does nothing when the terminal's private fields are not pi-tui's.
 */
export function gateStdinReads(
  terminal: object,
  gate: (pass: (data: string) => void) => (data: string) => void,
): void {
  const fields = terminal as {
    setupStdinBuffer?: unknown;
    stdinDataHandler?: (data: string) => void;
  };
  const setup = fields.setupStdinBuffer;
  if (typeof setup !== "function") {
    return;
  }
  fields.setupStdinBuffer = () => {
    setup.call(terminal);
    const handler = fields.stdinDataHandler;
    if (typeof handler === "function") {
      fields.stdinDataHandler = gate(handler);
    }
  };
}
