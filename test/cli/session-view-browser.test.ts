import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { longSessionLog } from "../../bench/long-session.mjs";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { type RecordedSession, recordSession } from "./session-view-support.js";

const hasBrowser = requireBrowser();
const SCREENSHOT = fileURLToPath(new URL("../../docs/session-view.png", import.meta.url));

let session: RecordedSession;
let browser: HeadlessBrowser;

beforeAll(async () => {
  session = await recordSession();
  if (hasBrowser) {
    browser = await launchBrowser();
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await session?.remove();
});

/** Runs `turnloop sessions view <id> --no-open --out <file>` and returns the file. */
async function viewFile(home: string, sessionId: string, name: string): Promise<string> {
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
async function homeWithLog(sessionId: string, log: string | Buffer): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "turnloop-view-golden-"));
  await mkdir(join(home, "session-state", sessionId), { recursive: true });
  await writeFile(join(home, "session-state", sessionId, "events.jsonl"), log);
  return home;
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ""));
const attributes = (page: Page, selector: string, name: string) =>
  page.$$eval(
    selector,
    (nodes, attribute) => nodes.map((node) => node.getAttribute(attribute)),
    name,
  );
const fieldText = (page: Page, name: string) =>
  page.$eval(`[data-field="${name}"]`, (node) => node.textContent);

describe.skipIf(!hasBrowser)("turnloop sessions view, in headless Chromium", () => {
  test("a real session: header numbers, turn rows, tool bars and marks match the log; nothing is requested", async () => {
    const events = await session.events();
    const file = await viewFile(session.home, session.sessionId, "view.html");
    const url = pathToFileURL(file).href;
    const { page, requests } = await browser.open(url);
    const usages = events.filter((event) => event.type === "assistant.usage");
    const sum = (key: string) =>
      usages.reduce((total, event) => total + Number(event.data[key] ?? 0), 0);
    const turnStarts = events.filter((event) => event.type === "assistant.turn_start");
    expect(await fieldText(page, "turns")).toBe(String(turnStarts.length));
    expect(await fieldText(page, "prompts")).toBe("2");
    expect(await fieldText(page, "tokens-in")).toBe(sum("inputTokens").toLocaleString("en-US"));
    expect(await fieldText(page, "tokens-out")).toBe(sum("outputTokens").toLocaleString("en-US"));
    expect(await fieldText(page, "tokens-cached")).toBe(
      sum("cacheReadTokens").toLocaleString("en-US"),
    );
    expect(await fieldText(page, "models")).toBe("openai-compatible:fake-model");
    expect(await fieldText(page, "tool-calls")).toBe("4");
    expect(await texts(page, ".tool-counts li")).toEqual([
      "bash: 1 denied",
      "edit: 1 success",
      "view: 1 failed, 1 success",
    ]);
    expect(await attributes(page, ".prompts li", "data-stop-reason")).toEqual([
      "end_turn",
      "end_turn",
    ]);
    expect(await page.textContent("#export-note")).toMatch(/file contents, commands/);

    expect(await attributes(page, ".turn-row", "data-turn")).toEqual(
      turnStarts.map((_, index) => String(index + 1)),
    );
    expect(await attributes(page, ".prompt-row", "data-prompt")).toEqual(["1", "2"]);
    // One bar per tool call, with the status and duration the log gives it.
    const completes = events.filter((event) => event.type === "tool.execution_complete");
    const startAt = new Map(
      events
        .filter((event) => event.type === "tool.execution_start")
        .map((event) => [event.data.toolCallId, Date.parse(event.timestamp)]),
    );
    const order = [...startAt.keys()];
    completes.sort((a, b) => order.indexOf(a.data.toolCallId) - order.indexOf(b.data.toolCallId));
    const expectedBars = completes.map((event) => {
      const error = event.data.error as { code?: string } | undefined;
      return {
        id: event.data.toolCallId,
        name: event.data.toolName,
        status:
          event.data.success === true ? "success" : error?.code === "denied" ? "denied" : "failed",
        duration: String(
          Date.parse(event.timestamp) -
            (startAt.get(event.data.toolCallId) ?? Date.parse(event.timestamp)),
        ),
      };
    });
    const bars = await page.$$eval(".tool-bar", (nodes) =>
      nodes.map((node) => ({
        id: node.getAttribute("data-tool-call-id"),
        name: node.getAttribute("data-name"),
        status: node.getAttribute("data-status"),
        duration: node.getAttribute("data-duration-ms"),
      })),
    );
    expect(bars).toEqual(expectedBars);
    expect(expectedBars.map((bar) => bar.status)).toEqual([
      "success",
      "failed",
      "success",
      "denied",
    ]);
    // Marks: the retry, the compaction pair, the resume (on a turn's row, or on its prompt's row
    // when it came after the prompt's last turn); a compaction row and a dashed chart line.
    const marks = await attributes(page, ".turn-row .mark, .prompt-row .mark", "data-kind");
    expect(marks.filter((kind) => kind === "retry")).toHaveLength(
      events.filter((event) => event.type === "assistant.retry").length,
    );
    expect(marks.filter((kind) => kind === "compaction")).toHaveLength(2);
    expect(marks.filter((kind) => kind === "resume")).toHaveLength(1);
    expect(await texts(page, ".compaction-row .prompt-text")).toEqual([
      "4,825 → 850 tokens · 9 messages removed · threshold",
    ]);
    // Every model request is a turn: the 500 is a failed turn of its own, then the retry's.
    expect(await attributes(page, ".turn-row", "data-status")).toEqual([
      "failed",
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    expect(await attributes(page, '.turn-row[data-turn="1"] .mark', "data-kind")).toEqual([
      "retry",
    ]);
    expect(await attributes(page, ".compaction-line", "data-after-turn")).toEqual(["5"]);
    expect(await attributes(page, "polyline[data-series=context]", "data-points")).toEqual([
      String(usages.length),
    ]);

    // A request the page might try is refused by its Content-Security-Policy.
    const fetched = await page.evaluate(() =>
      fetch("http://127.0.0.1:9/").then(
        () => "fetched",
        () => "blocked",
      ),
    );
    expect(fetched).toBe("blocked");
    expect(requests).toEqual([url]);

    if (process.env.UPDATE_SCREENSHOT === "1") {
      await page.selectOption("#scale-mode", "turn");
      await page.click('.tool-bar[data-name="edit"]');
      await mkdir(join(SCREENSHOT, ".."), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    }
    await page.close();
  });

  test("clicking shows the full message, arguments, result, an edit's diff and the compaction summary", async () => {
    const file = await viewFile(session.home, session.sessionId, "view-details.html");
    const { page } = await browser.open(pathToFileURL(file).href);
    await page.click('.tool-bar[data-name="edit"]');
    expect(await page.textContent("#details h2")).toBe("Turn 3 (prompt 1)");
    expect(await texts(page, "#details pre.message")).toEqual(["Fixing the typo."]);
    expect(await texts(page, "#details .diff span")).toEqual(['- "helo"\n', '+ "hello"\n']);
    expect(await page.getAttribute("#details .tool-details.focused", "data-tool-call-id")).toBe(
      "call_edit",
    );

    // The attempt that got a 500: a failed turn without a reply or tools, marked with its retry.
    await page.click('.turn-row[data-turn="1"]');
    expect(await texts(page, "#details p.meta")).toEqual([
      "failed · error: overloaded",
      expect.stringMatching(
        /^request sent at \+\d+ ms · first token not recorded · turn_end after \d+ ms$/,
      ),
      "tokens: no usage in the log",
      "no reply: the request failed (overloaded); it was retried as the next turn",
    ]);
    expect(await texts(page, "#details .tool-details h3")).toEqual([]);
    expect(await texts(page, "#details .marks li")).toEqual([
      expect.stringMatching(
        /^retry \+\d+ ms retry 1 after HTTP 500: HTTP 500: upstream overloadeddetailswaited \d+ ms$/,
      ),
    ]);

    await page.click('.turn-row[data-turn="2"]');
    expect(await texts(page, "#details .tool-details h3")).toEqual([
      expect.stringMatching(/^view · success · \d+ ms$/),
      expect.stringMatching(/^view · failed · \d+ ms$/),
    ]);
    expect(await texts(page, "#details .tool-details .error")).toEqual([
      "error (failed): Path src/missing.ts does not exist. Please provide a valid path.",
    ]);
    expect(await texts(page, "#details .marks li")).toEqual([]);

    await page.click('.turn-row[data-turn="4"]');
    expect(await texts(page, "#details .tool-details .error")).toEqual([
      expect.stringMatching(/^error \(denied\): Permission denied for 'bash'/),
    ]);
    await page.click(".compaction-row");
    expect(await texts(page, "#details pre.message")).toEqual([
      "The user asked to fix a typo in src/greet.ts; it is fixed; bash was denied.",
    ]);
    await page.close();
  });

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
      expect(await fieldText(page, "status")).toBe("running (or stopped mid-turn)");
      expect(await attributes(page, ".turn-row", "data-status")).toEqual([
        "failed",
        "completed",
        "completed",
        "completed",
        "completed",
        "cancelled",
        "open",
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
        "unfinished",
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
        "answer after 4.00 s: denied (once): not that file",
      ]);
      expect(await texts(page, "#details .diff span")).toEqual([
        "  const flags = {\n",
        "    quiet: false,\n",
        "+   verbose: false,\n",
        "  };\n",
      ]);
      await page.close();
    } finally {
      await rm(home, { recursive: true, force: true });
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
      await rm(home, { recursive: true, force: true });
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
      await rm(home, { recursive: true, force: true });
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
      await rm(home, { recursive: true, force: true });
    }
  });
});
