import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../bench/chromium.mjs";
import { removeTree } from "./remove-tree.js";

/** Why browser tests cannot run here, or `undefined` when they can. */
export function browserMissingReason(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set TURNLOOP_CHROMIUM)`;
}

/**
 * Skips a browser test suite on a machine without Chromium, printing why; in CI (CI=true) a missing
 * browser is a failure, since `.ci/run` installs it.
 */
export function requireBrowser(): boolean {
  const reason = browserMissingReason();
  if (reason === undefined) {
    return true;
  }
  if (process.env.CI === "true") {
    throw new Error(`browser tests must run in CI: ${reason}`);
  }
  process.stderr.write(`skipping browser tests: ${reason}\n`);
  return false;
}

/** A headless Chromium with a fresh profile; `close` removes the profile. */
export interface HeadlessBrowser {
  context: BrowserContext;
  /** Opens `url` and records every request the page makes (the page's own URL included). */
  open(
    url: string,
    viewport?: { width: number; height: number },
  ): Promise<{ page: Page; requests: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<HeadlessBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "turnloop-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    viewport: { width: 1400, height: 900 },
  });
  return {
    context,
    async open(url, viewport) {
      const page = await context.newPage();
      if (viewport !== undefined) {
        await page.setViewportSize(viewport);
      }
      const requests: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      await page.goto(url, { waitUntil: "load" });
      await page.waitForSelector("body[data-rendered-ms]");
      return { page, requests };
    },
    async close() {
      await context.close();
      await removeTree(profile);
    },
  };
}
