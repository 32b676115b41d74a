import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, vi } from "vitest";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { test } from "../support/fixtures.js";

const hasBrowser = requireBrowser();
let browser: HeadlessBrowser;

beforeAll(async () => {
  if (hasBrowser) {
    browser = await launchBrowser();
  }
});

afterAll(async () => {
  await browser?.close();
});

/** `probe`'s value once it has one (a file another process writes), checking every 50 ms. */
function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) {
        throw new Error("the session has not got there yet");
      }
      return value;
    },
    { timeout: 30_000, interval: 50 },
  );
}

describe.skipIf(!hasBrowser)("the view of a session that is still running", () => {
  test("shows the open turn; re-running the command shows how it ended", async ({
    cli,
    home,
    model,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }] },
      { text: ["Still ", "thinking", " more"], stallAfterEvents: 3 },
    );
    let child: ChildProcess | undefined;
    const running = cli(["-p", "List the files"], {
      onStart: (started) => {
        child = started;
      },
    });
    const sessionId = await waitFor(async () => {
      const [id] = await readdir(join(home, "session-state"));
      const log = await readFile(join(home, "session-state", id ?? "", "events.jsonl"), "utf8");
      return log.split('"assistant.turn_start"').length === 3 ? id : undefined;
    });
    const out = join(home, "view.html");
    const view = () => cli(["sessions", "view", sessionId, "--no-open", "--out", out]);
    expect((await view()).code).toBe(0);
    const first = await browser.open(pathToFileURL(out).href);
    expect(await first.page.getAttribute('.turn-row[data-turn="2"]', "data-status")).toBe("open");
    expect(await first.page.textContent('[data-field="status"]')).toBe(
      "running (or stopped mid-turn)",
    );
    expect(await first.page.getAttribute(".prompts li", "data-stop-reason")).toBe("unfinished");
    await first.page.close();

    child?.kill("SIGINT");
    const ended = await running;
    expect(ended.code).not.toBe(0);
    expect((await view()).code).toBe(0);
    const second = await browser.open(pathToFileURL(out).href);
    expect(await second.page.getAttribute(".prompts li", "data-stop-reason")).toBe("cancelled");
    expect(await second.page.textContent('[data-field="status"]')).toBe("idle");
    // The abort is logged after the cancelled turn's end: its prompt's row carries it.
    expect(await second.page.getAttribute('.prompt-row[data-prompt="1"] .mark', "data-kind")).toBe(
      "abort",
    );
    await second.page.close();
  });
});
