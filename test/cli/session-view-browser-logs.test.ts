import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { longSessionLog } from "../../bench/long-session.mjs";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { removeTree } from "../support/remove-tree.js";
import { attributes, fieldText, homeWithLog, texts, viewFile } from "./session-view-page.js";

const hasBrowser = requireBrowser();

let browser: HeadlessBrowser;

beforeAll(async () => {
  if (hasBrowser) {
    browser = await launchBrowser();
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Hand-written logs in the session view (session-view-browser.test.ts: a real session's): a
 * newer order of events, a damaged log, 2,000 turns, and markup from the log shown as text.
 */
describe.skipIf(!hasBrowser)("turnloop sessions view, in headless Chromium", () => {
  test("a newer-order log: failed and compaction turns, permission waits, cost, a cancelled and a running prompt", async () => {
    const golden = await readFile(
      new URL("./session-view-golden/new-order.jsonl", import.meta.url),
    );
    const home = await homeWithLog("golden-new-order", golden);
    try {
      const { page } = await browser.open(
        pathToFileURL(await viewFile(home, "golden-new-order", "v.html")).href,
      );
      expect(await fieldText(page, "cost")).toBe("$0.5310");
      // No process holds the hand-written log: its last prompt and its open turn were
      // interrupted (fold.ts), as the next open records them.
      expect(await fieldText(page, "status")).toBe("idle");
      expect(await attributes(page, ".turn-row", "data-status")).toEqual([
        "failed",
        "completed",
        "completed",
        "completed",
        "completed",
        "cancelled",
        "interrupted",
      ]);
      expect(await attributes(page, ".turn-row", "data-purpose")).toEqual([
        null,
        null,
        "compaction",
        null,
        null,
        null,
        null,
      ]);
      expect(await attributes(page, ".prompts li", "data-stop-reason")).toEqual([
        "end_turn",
        "cancelled",
        "interrupted",
      ]);
      expect(await attributes(page, ".permission-wait", "data-decision")).toEqual([
        "allowed",
        "denied",
      ]);
      // The abort came after the cancelled turn ended: its prompt's row carries it.
      expect(await attributes(page, '.turn-row[data-turn="6"] .mark', "data-kind")).toEqual([]);
      expect(await attributes(page, '.prompt-row[data-prompt="2"] .mark', "data-kind")).toEqual([
        "abort",
      ]);
      expect(await attributes(page, "polyline[data-series=cost]", "data-points")).toEqual(["6"]);
      await page.click('.turn-row[data-turn="4"]');
      expect(await texts(page, "#details .permission .question")).toEqual([
        "asked (edit): Edit src/cli.ts",
      ]);
      expect(await texts(page, "#details .permission .answer")).toEqual([
        "answer after 4 s: denied (once): not that file",
      ]);
      expect(await texts(page, "#details .diff span")).toEqual([
        "  const flags = {\n",
        "    quiet: false,\n",
        "+   verbose: false,\n",
        "  };\n",
      ]);
      await page.close();
    } finally {
      await removeTree(home);
    }
  });

  test("a damaged log: the skipped lines are listed and marked on their turns", async () => {
    const home = await homeWithLog(
      "golden-damaged",
      await readFile(new URL("./session-view-golden/damaged.jsonl", import.meta.url)),
    );
    try {
      const result = await runCli(["sessions", "view", "golden-damaged", "--no-open"], {
        cwd: home,
        env: cleanEnvironment({ TURNLOOP_HOME: home }),
      });
      expect(result.stderr).toBe(
        "turnloop: skipped 3 damaged lines while reading (marked in the view)\n",
      );
      const file = join(home, "session-state", "golden-damaged", "view.html");
      expect(result.stdout).toBe(`${file}\n`);
      const { page } = await browser.open(pathToFileURL(file).href);
      expect(await attributes(page, ".repairs li", "data-line")).toEqual(["2", "5", "11"]);
      expect(await attributes(page, '.turn-row .mark[data-kind="repaired"]', "title")).toEqual([
        "line 5 skipped: invalid_event",
        "line 11 skipped: torn_tail",
      ]);
      expect(await attributes(page, '.prompt-row .mark[data-kind="repaired"]', "title")).toEqual([
        "line 2 skipped: invalid_json",
      ]);
      await page.close();
    } finally {
      await removeTree(home);
    }
  });

  test("2,000 turns: only the rows in view are in the DOM, and scrolling reaches the last turn", async () => {
    const log = longSessionLog(2000);
    const home = await homeWithLog("long-session", log);
    try {
      const file = await viewFile(home, "long-session", "long.html");
      // The data is compressed: the page is a fraction of the log (uncompressed JSON was ×0.7).
      expect((await stat(file)).size).toBeLessThan(Buffer.byteLength(log) / 4);
      const { page } = await browser.open(pathToFileURL(file).href);
      expect(await fieldText(page, "turns")).toBe("2,000");
      const rendered = await page.$$eval(".row", (nodes) => nodes.length);
      expect(rendered).toBeGreaterThan(10);
      expect(rendered).toBeLessThan(100);
      await page.$eval("#timeline-scroll", (node) => {
        node.scrollTop = node.scrollHeight;
      });
      await page.waitForSelector('.turn-row[data-turn="2000"]');
      expect(await page.$$eval(".row", (nodes) => nodes.length)).toBeLessThan(100);
      await page.close();
    } finally {
      await removeTree(home);
    }
  });
  test("text from the log is shown as text: markup in a message, a result or a prompt runs nothing", async () => {
    const hostile =
      '</script><script>window.injected = 1</script><img src="http://127.0.0.1:9/x.png" onerror="window.injected = 2">';
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 3, 0, 0, 0, ms)).toISOString();
    const events = [
      [
        "session.start",
        {
          sessionId: "hostile",
          version: 1,
          producer: "turnloop",
          producerVersion: "0.1.0",
          startTime: at(0),
          cwd: "/w",
          model: "openai:gpt-5",
        },
      ],
      ["user.message", { content: hostile, source: "user" }],
      ["assistant.turn_start", { turnId: "t1" }],
      [
        "assistant.message",
        {
          messageId: "m1",
          content: hostile,
          toolRequests: [{ toolCallId: "c1", name: "view", arguments: { path: hostile } }],
          finishReason: "tool-calls",
        },
      ],
      [
        "tool.execution_start",
        { toolCallId: "c1", toolName: "view", arguments: { path: hostile } },
      ],
      [
        "tool.execution_complete",
        { toolCallId: "c1", toolName: "view", success: true, result: { content: hostile } },
      ],
      ["assistant.turn_end", { turnId: "t1", status: "completed", finishReason: "tool-calls" }],
    ];
    const log = events.map(
      ([type, data], index) =>
        `${JSON.stringify({ type, data, id: `h${index}`, timestamp: at(index * 10), parentId: index === 0 ? null : `h${index - 1}` })}\n`,
    );
    const home = await homeWithLog("hostile", log.join(""));
    try {
      const url = pathToFileURL(await viewFile(home, "hostile", "hostile.html")).href;
      const { page, requests } = await browser.open(url);
      await page.click('.turn-row[data-turn="1"]');
      expect(
        await page.evaluate(() => (globalThis as { injected?: number }).injected),
      ).toBeUndefined();
      expect(await texts(page, "#details pre.message")).toEqual([hostile]);
      expect(await texts(page, "#details pre.result")).toEqual([hostile]);
      expect(await page.$$eval("img", (nodes) => nodes.length)).toBe(0);
      expect(await page.$$eval("script", (nodes) => nodes.length)).toBe(2);
      expect(requests).toEqual([url]);
      await page.close();
    } finally {
      await removeTree(home);
    }
  });
});
