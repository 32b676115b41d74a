/**
 * The system's Chromium for the session-view benchmark and tests: Debian's `chromium` (`.ci/run`
 * installs it), or `TURNLOOP_CHROMIUM`. Never a downloaded browser.
 */

export const CHROMIUM_PATH = process.env.TURNLOOP_CHROMIUM ?? "/usr/bin/chromium";

/** Headless, no sandbox (CI runs as root), and nothing that talks to the network by itself. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
