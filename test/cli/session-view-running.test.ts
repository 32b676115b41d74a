import type { ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";

const hasBrowser = requireBrowser();
let browser: HeadlessBrowser;
let server: FakeModelServer;
let home: string;

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-view-running-"));
  if (hasBrowser) {
    browser = await launchBrowser();
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(home, { recursive: true, force: true });
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
  test("shows the open turn; re-running the command shows how it ended", async () => {
    server.enqueue(
      { toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }] },
      { text: ["Still ", "thinking", " more"], stallAfterEvents: 3 },
    );
    const environment = cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    });
    let child: ChildProcess | undefined;
    const running = runCli(["-p", "List the files"], {
      cwd: home,
      env: environment,
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
    const view = () =>
      runCli(["sessions", "view", sessionId, "--no-open", "--out", out], {
        cwd: home,
        env: environment,
      });
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
    expect(await second.page.getAttribute('.turn-row[data-turn="2"] .mark', "data-kind")).toBe(
      "abort",
    );
    await second.page.close();
  });
});
