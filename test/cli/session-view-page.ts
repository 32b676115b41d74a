import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { makeHome } from "../support/test-home.js";

/**
 * The page a `turnloop sessions view` export makes, and what the browser tests read of it
 * (session-view-browser.test.ts, session-view-browser-logs.test.ts).
 */

/** Runs `turnloop sessions view <id> --no-open --out <file>` and returns the file. */
export async function viewFile(home: string, sessionId: string, name: string): Promise<string> {
  const out = join(home, name);
  const result = await runCli(
    ["sessions", "view", sessionId.slice(0, 8), "--no-open", "--out", out],
    {
      cwd: home,
      env: cleanEnvironment({ TURNLOOP_HOME: home }),
    },
  );
  expect(result.stdout).toBe(`${out}\n`);
  expect(result.code).toBe(0);
  return out;
}

/** Puts a hand-written log in a fresh TURNLOOP_HOME as session `sessionId`. */
export async function homeWithLog(sessionId: string, log: string | Buffer): Promise<string> {
  const home = await makeHome("turnloop-view-golden-");
  await mkdir(join(home, "session-state", sessionId), { recursive: true });
  await writeFile(join(home, "session-state", sessionId, "events.jsonl"), log);
  return home;
}

/** The text of each node `selector` picks, in document order. */
export const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ""));
/** Attribute `name` of each node `selector` picks, in document order. */
export const attributes = (page: Page, selector: string, name: string) =>
  page.$$eval(
    selector,
    (nodes, attribute) => nodes.map((node) => node.getAttribute(attribute)),
    name,
  );
/** The text of the `data-field="name"` node. */
export const fieldText = (page: Page, name: string) =>
  page.$eval(`[data-field="${name}"]`, (node) => node.textContent);
