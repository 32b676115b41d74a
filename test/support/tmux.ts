import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { CLI_PATH } from "./cli.js";

/** Whether tmux is installed; TTY tests skip without it (and CI fails them, see requireTmux). */
export const HAVE_TMUX = spawnSync("tmux", ["-V"]).status === 0;

/**
 * The built CLI in a real terminal: a tmux pane on a private server socket. `screen()` is what
 * the pane shows; `type()` sends keys as a user would.
 */
export class TerminalSession {
  private readonly socket = `turnloop-test-${randomUUID().slice(0, 8)}`;
  private readonly name = "main";

  constructor(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    const assignments = Object.entries(options.env)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${shellQuote(value ?? "")}`);
    const command = `env -i ${assignments.join(" ")} ${shellQuote(process.execPath)} ${shellQuote(CLI_PATH)} ${args.map(shellQuote).join(" ")}; echo "[exit $?]"; sleep 600`;
    this.tmux(
      "new-session",
      "-d",
      "-s",
      this.name,
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      options.cwd,
      command,
    );
  }

  /** The pane's text, lines joined with `\n`, trailing blanks removed. */
  screen(): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", this.name).replace(/\s+$/, "");
  }

  /** Sends `text` and Enter. */
  type(text: string): void {
    this.tmux("send-keys", "-t", this.name, "-l", text);
    this.tmux("send-keys", "-t", this.name, "Enter");
  }

  /** Sends a key by tmux name, e.g. `C-c`. */
  key(name: string): void {
    this.tmux("send-keys", "-t", this.name, name);
  }

  /** Waits until the screen matches `pattern`; returns the screen. @throws with the screen on timeout. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) {
        return screen;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${pattern}; the screen shows:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"]);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** For a TTY test without tmux: fails in CI (CI=true), says why otherwise. */
export function tmuxMissing(): boolean {
  if (HAVE_TMUX) {
    return false;
  }
  if (process.env.CI === "true") {
    throw new Error("tmux is required for the terminal tests in CI (apt-get install -y tmux)");
  }
  console.warn("tmux is not installed: skipping the terminal tests");
  return true;
}
