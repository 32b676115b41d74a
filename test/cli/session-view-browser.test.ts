import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { attributes, fieldText, texts, viewFile } from "./session-view-page.js";
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
    // Turns as -p counts them (usage-totals.ts): the request retried after its 500 is not one.
    const retried = events.filter((event) => event.type === "assistant.retry").length;
    expect(retried).toBe(1);
    expect(await fieldText(page, "turns")).toBe(
      `${turnStarts.length - retried} (${turnStarts.length} requests)`,
    );
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

    // The rows are model requests (README: a retried attempt is a row of its own, not a turn):
    // the heading counts them as what they are.
    expect(await texts(page, "#timeline h2")).toEqual([
      `Timeline: ${turnStarts.length} model requests`,
    ]);
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
    expect(await page.textContent("#details h2")).toBe("Turn 2 (prompt 1)");
    expect(await texts(page, "#details pre.message")).toEqual(["Fixing the typo."]);
    // The change in its file, numbered, as every face draws it (session 41: the page's own diff
    // of the call's texts had no line number).
    expect(await texts(page, "#details .diff span")).toEqual([
      '1 - export const greeting = "helo";\n',
      '1 + export const greeting = "hello";\n',
    ]);
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
        /^retry \+\d+ ms retry 1: HTTP 500: upstream overloadeddetailswaited \d+ ms$/,
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
});
