import { execFile, execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import { expect } from "vitest";
import { CLI_PATH } from "./cli.js";
import { TerminalControl } from "./terminal-control.js";

/**
 * How long a synchronized update may stay open with nothing written before a wait takes the
 * screen as it is (a program killed mid-frame leaves its frame open; one that runs ends it in
 * milliseconds).
 */
const FRAME_LEFT_OPEN_MS = 5_000;

const execFileAsync = promisify(execFile);

/** Whether tmux can run here; interactive tests fail in CI without it (see {@link tmuxMissing}). */
const HAVE_TMUX = spawnSync("tmux", ["-V"]).status === 0;

/**
 * `true` when the terminal tests must be skipped (no tmux, not CI), with a warning saying so.
 * @throws in CI (CI=true) when tmux is missing: there the tests must run.
 */
export function tmuxMissing(): boolean {
  if (HAVE_TMUX) {
    return false;
  }
  if (process.env.CI === "true") {
    throw new Error("tmux is required for the interactive tests in CI (apt-get install -y tmux)");
  }
  console.warn("tmux is not installed: skipping the interactive terminal tests");
  return true;
}

/**
 * `turnloop` in a real terminal: a tmux pane on a private server, `columns`×`rows`. After the
 * CLI exits the pane prints `[exit N]` and the terminal's line settings (`stty -a`) and cursor
 * state, so a test can check that the terminal was given back.
 */
export class InteractiveTerminal {
  /** The tmux server's socket name (`tmux -L`), for commands this class does not wrap. */
  readonly socketName = `turnloop-interactive-${randomUUID().slice(0, 8)}`;
  private readonly target = "main";
  /** The waits' eyes on the pane (test/support/terminal-control.ts). */
  private readonly control = new TerminalControl(this.socketName, this.target);

  constructor(
    args: readonly string[],
    options: {
      cwd: string;
      env: NodeJS.ProcessEnv;
      columns?: number;
      rows?: number;
      /**
       * A folder where the CLI's stderr (`stderr`) and exit code (`code`) are written, for a test
       * that closes the window ({@link closeWindow}); the pane then shows no `[exit N]` line.
       */
      recordIn?: string;
      /**
       * A file whose making starts the CLI: until then the pane's shell waits (checking every
       * 50 ms), its terminal in cooked mode, as while a slow start-up loads; for keys typed before
       * the CLI runs.
       */
      startWhen?: string;
      /** The program and its arguments to run in place of `turnloop args` (the harness's own tests). */
      program?: readonly string[];
    },
  ) {
    const env = { TERM: "xterm-256color", ...options.env };
    const assignments = Object.entries(env)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${shellQuote(value ?? "")}`);
    const cli = (options.program ?? [process.execPath, CLI_PATH, ...args])
      .map(shellQuote)
      .join(" ");
    let run = `env -i ${assignments.join(" ")} ${cli}`;
    let after = `echo "[exit $?]"; echo "[stty $(stty -a | tr '\\n' ' ')]"; sleep 600`;
    if (options.recordIn !== undefined) {
      // As a login shell does when its terminal hangs up, the pane's bash passes the SIGHUP on to
      // the CLI (the kernel signals the session leader only), then outlives the terminal to write
      // the CLI's code (a second `wait` when the signal cut the first short).
      const folder = shellQuote(options.recordIn);
      const script = [
        `trap 'kill -HUP $child' HUP`,
        `${run} 2>${folder}/stderr </dev/tty & child=$!`,
        "wait $child; wait $child",
        `echo $? > ${folder}/code.partial; mv ${folder}/code.partial ${folder}/code`,
      ].join("\n");
      run = `exec bash -c ${shellQuote(script)}`;
      after = "";
    }
    this.tmux(
      "new-session",
      "-d",
      "-s",
      this.target,
      "-x",
      String(options.columns ?? 80),
      "-y",
      String(options.rows ?? 24),
      "-c",
      options.cwd,
      [
        ...(options.startWhen === undefined
          ? []
          : [`until [ -e ${shellQuote(options.startWhen)} ]; do sleep 0.05; done`]),
        run,
        ...(after === "" ? [] : [after]),
      ].join("; "),
    );
    // The waits' client attaches at once, to see the program's frames from its first (a frame
    // begun before it attached would look ended to it).
    this.control.attach();
  }

  /**
   * What the pane shows (with `history` lines of scrollback), trailing blanks removed: the first
   * look that catches no frame half drawn ({@link poll}).
   */
  screen(history = 0): Promise<string> {
    return this.poll(() => true, "for a whole frame", 15_000, history);
  }

  /**
   * {@link screen} without blocking the event loop, for the waits: the test process also runs the
   * fake model server, whose answers a blocking `tmux capture-pane` held back while it ran. Asked
   * through the control client, which says whether the capture caught a frame half drawn
   * (terminal-control.ts `midFrame`); a `tmux` process when that has ended (the session closed).
   */
  private async screenLater(history: number): Promise<{ screen: string; midFrame: boolean }> {
    const captureArguments = this.captureArguments(history);
    const reply = await this.control.run(captureArguments).catch(() => undefined);
    if (reply !== undefined) {
      return { screen: reply.lines.join("\n").replace(/\s+$/, ""), midFrame: reply.midFrame };
    }
    const { stdout } = await execFileAsync("tmux", ["-L", this.socketName, ...captureArguments], {
      encoding: "utf8",
    });
    return { screen: stdout.replace(/\s+$/, ""), midFrame: false };
  }

  private captureArguments(history: number): string[] {
    const start = history > 0 ? ["-S", String(-history)] : [];
    return ["capture-pane", "-p", "-J", ...start, "-t", this.target];
  }

  /** Types `text` literally (no Enter). */
  write(text: string): void {
    this.tmux("send-keys", "-t", this.target, "-l", text);
  }

  /** Types `text` and presses Enter. */
  type(text: string): void {
    this.write(text);
    this.key("Enter");
  }

  /** Presses keys by tmux name: `C-c`, `Escape`, `Up`, `M-Enter`, `Tab`. */
  key(...names: string[]): void {
    this.tmux("send-keys", "-t", this.target, ...names);
  }

  /** Pastes `text` as a terminal paste (bracketed when the program asked for it). */
  paste(text: string): void {
    this.tmux("set-buffer", "-b", "paste", text);
    this.tmux("paste-buffer", "-p", "-b", "paste", "-t", this.target);
  }

  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.tmux("resize-window", "-t", this.target, "-x", String(columns), "-y", String(rows));
  }

  /** The title the program set for the terminal, else tmux's own (tmux's `pane_title`). */
  title(): string {
    return this.tmux("display-message", "-p", "-t", this.target, "#{pane_title}").trim();
  }

  /** Whether the terminal shows its cursor (tmux's `cursor_flag`). */
  cursorVisible(): boolean {
    return this.tmux("display-message", "-p", "-t", this.target, "#{cursor_flag}").trim() === "1";
  }

  /** The pid of the CLI process (the pane's shell's child). */
  cliPid(): number {
    const shell = this.tmux("display-message", "-p", "-t", this.target, "#{pane_pid}").trim();
    const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", shell], {
      encoding: "utf8",
    });
    const line = children.split("\n").find((entry) => /node/.test(entry));
    if (line === undefined) {
      throw new Error(`no CLI process under the pane's shell ${shell}: ${children}`);
    }
    return Number(line.trim().split(/\s+/)[0]);
  }

  /**
   * Waits until the screen matches `pattern`; returns the screen.
   * @throws with the screen when `timeoutMs` passes first.
   */
  async waitFor(pattern: RegExp, timeoutMs = 15_000, history = 0): Promise<string> {
    return this.poll((screen) => pattern.test(screen), `for ${pattern}`, timeoutMs, history);
  }

  /**
   * Polls the screen until `condition(screen)` holds (as {@link poll} looks; not a delay)
   * and returns that screen (with `history` lines of scrollback); throws after `timeoutMs` with
   * `what` and the last screen. For a state that takes several redraws, such as a resize, where
   * one pattern can match a screen between two of them.
   */
  waitUntil(
    condition: (screen: string) => boolean,
    what: string,
    timeoutMs = 15_000,
    history = 0,
  ): Promise<string> {
    return this.poll(condition, `until ${what}`, timeoutMs, history);
  }

  /**
   * Waits until the screen, seen through `normalise` (default: its lines, trailing spaces cut),
   * equals `expected` (deep equality), and returns that screen. A pattern can match a screen caught
   * between two writes of one redraw (seen in CI: the status line drawn, the input box's rules not
   * yet); this waits for everything it then compares.
   * @throws vitest's assertion with the diff against the last screen when `timeoutMs` passes first.
   */
  async waitForScreen<T = string[]>(
    expected: T,
    normalise: (screen: string) => unknown = screenLines,
    timeoutMs = 15_000,
  ): Promise<string> {
    const drawn = (screen: string) => isDeepStrictEqual(normalise(screen), expected);
    const screen = await this.poll(drawn, "for the expected screen", timeoutMs, 0).catch(
      async () => (await this.screenLater(0)).screen,
    );
    expect(normalise(screen)).toEqual(expected);
    return screen;
  }

  /**
   * Looks at the screen until `condition` holds: again once the pane has written something since
   * the last look (tmux's `%output`), at most every 50 ms and at least every second (a resize
   * changes the screen without output); a look, not a delay, decides. A screen caught inside one of
   * the program's synchronized updates (pi-tui wraps each frame in one) is half drawn, its last rows
   * perhaps not yet written (CI saw a status line cut short under a matched box): it counts only
   * once the frame is ended, or when nothing more was written for {@link FRAME_LEFT_OPEN_MS} (a
   * program killed mid-frame). `condition` sees every screen looked at, whole or not.
   */
  private async poll(
    condition: (screen: string) => boolean,
    what: string,
    timeoutMs: number,
    history: number,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    /** While the screens looked at are half drawn: the output count then, and since when. */
    let open: { outputs: number; since: number } | undefined;
    for (;;) {
      const outputs = this.control.outputCount;
      const { screen, midFrame } = await this.screenLater(history);
      const leftOpen = open?.outputs === outputs && Date.now() - open.since >= FRAME_LEFT_OPEN_MS;
      if (condition(screen) && (!midFrame || leftOpen)) {
        return screen;
      }
      const now = this.control.outputCount;
      open = !midFrame
        ? undefined
        : open?.outputs === now
          ? open
          : { outputs: now, since: Date.now() };
      const left = deadline - Date.now();
      if (left < 0) {
        throw new Error(`timed out waiting ${what}; the screen shows:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      await this.control.outputAfter(open?.outputs ?? outputs, Math.min(1_000, left));
    }
  }

  /**
   * Waits until the status line shows the keys again (no prompt, command or shell run in
   * progress), or, after a prompt that failed for good, how to try it again in their place (until
   * the next key): the gate before typing the next prompt, whose Enter a busy session ignores.
   */
  idle(timeoutMs = 15_000): Promise<string> {
    return this.waitFor(/Enter send · |or send "continue" to try again/, timeoutMs);
  }

  /** Waits for the CLI to exit; returns its exit code and the `stty -a` line printed after. */
  async exited(timeoutMs = 15_000): Promise<{ code: number; stty: string }> {
    const screen = await this.waitFor(/\[stty [^\]]*\]/, timeoutMs, 500);
    const code = /\[exit (\d+)\]/.exec(screen)?.[1];
    const stty = /\[stty ([^\]]*)\]/.exec(screen)?.[1] ?? "";
    return { code: Number(code), stty };
  }

  /**
   * Exits as a user does at an idle prompt: Ctrl-C, which must show the hint to press it again,
   * then Ctrl-C; answers as {@link exited}. @throws when the hint does not show.
   */
  async exitWithCtrlC(): Promise<{ code: number; stty: string }> {
    this.key("C-c");
    await this.waitFor(/press Ctrl-C again to exit/);
    this.key("C-c");
    return this.exited();
  }

  /** Closes the terminal window as a user does (the pane's terminal hangs up: SIGHUP, then EIO). */
  closeWindow(): void {
    this.tmux("kill-session", "-t", this.target);
  }

  /** Stops the tmux server and removes its socket file, which `kill-server` leaves behind. */
  close(): void {
    this.control.close();
    spawnSync("tmux", ["-L", this.socketName, "kill-server"]);
    const folder = process.env.TMUX_TMPDIR ?? "/tmp";
    rmSync(join(folder, `tmux-${process.getuid?.() ?? 0}`, this.socketName), { force: true });
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socketName, ...args], { encoding: "utf8" });
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The lines of `screen`, each without its trailing spaces. */
export function screenLines(screen: string): string[] {
  return screen.split("\n").map((line) => line.trimEnd());
}
