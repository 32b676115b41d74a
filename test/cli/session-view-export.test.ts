import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";
import { type RecordedSession, recordSession } from "./session-view-support.js";

let session: RecordedSession;

beforeAll(async () => {
  session = await recordSession();
}, 60_000);

afterAll(async () => {
  await session?.remove();
});

describe("turnloop sessions export", () => {
  test("markdown and json carry the note and every turn; html is the same page as view", async () => {
    const environment = cleanEnvironment({ TURNLOOP_HOME: session.home });
    const markdown = await runCli(
      ["sessions", "export", session.sessionId, "--format", "markdown"],
      { cwd: session.home, env: environment },
    );
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(
      "> This export contains what the session recorded: file contents, commands",
    );
    // A heading per model request, turns numbered as -p counts them (usage-totals.ts): the
    // attempt that got a 500 is turn 1's first, failed, with its retry; the retry its second.
    expect(markdown.stdout.match(/^### Turn \d+(, attempt \d)? · \w+( \(\w+\))?/gm)).toEqual([
      "### Turn 1, attempt 1 · failed (overloaded)",
      "### Turn 1, attempt 2 · completed",
      "### Turn 2 · completed",
      "### Turn 3 · completed",
      "### Turn 4 · completed",
      "### Turn 5 · completed",
    ]);
    const firstTurn =
      markdown.stdout.split("### Turn 1, attempt 2")[0]?.split("### Turn 1, attempt 1")[1] ?? "";
    expect(firstTurn).toMatch(/retry 1: HTTP 500: /);
    expect(markdown.stdout.match(/^#### `\w+` · \w+/gm)).toEqual([
      "#### `view` · success",
      "#### `view` · failed",
      "#### `edit` · success",
      "#### `bash` · denied",
    ]);
    const out = join(session.home, "export.json");
    const json = await runCli(
      ["sessions", "export", session.sessionId, "--format", "json", "--out", out],
      { cwd: session.home, env: environment },
    );
    expect(json).toMatchObject({ code: 0, stdout: "", stderr: `turnloop: wrote ${out}\n` });
    const exported = JSON.parse(await readFile(out, "utf8"));
    expect(exported.note).toMatch(/file contents, commands/);
    expect(exported.summary).toMatchObject({ sessionId: session.sessionId, turns: 5, prompts: 2 });
    const html = await runCli(["sessions", "export", session.sessionId, "--format", "html"], {
      cwd: session.home,
      env: environment,
    });
    expect(html.stdout).toMatch(/^<!doctype html>/);
    expect(html.stdout).toContain("default-src 'none'");
  });

  test("an --out in a folder that does not exist names that folder, not the session (trial finding 9)", async () => {
    const environment = cleanEnvironment({ TURNLOOP_HOME: session.home });
    const missing = join(session.home, "no-such-folder");
    for (const [format, file] of [
      ["html", "x.html"],
      ["markdown", "x.md"],
      ["jsonl", "x.jsonl"],
    ] as const) {
      const out = join(missing, file);
      const result = await runCli(
        ["sessions", "export", session.sessionId, "--format", format, "--out", out],
        { cwd: session.home, env: environment },
      );
      expect(result).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `turnloop: cannot write ${out}: no folder ${missing}\n`,
      });
    }
    const out = join(missing, "v.html");
    const view = await runCli(["sessions", "view", session.sessionId, "--out", out, "--no-open"], {
      cwd: session.home,
      env: environment,
    });
    expect(view).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `turnloop: cannot write ${out}: no folder ${missing}\n`,
    });
  });

  test("bad input: an unknown format, an unknown session", async () => {
    const environment = cleanEnvironment({ TURNLOOP_HOME: session.home });
    const format = await runCli(["sessions", "export", session.sessionId, "--format", "pdf"], {
      cwd: session.home,
      env: environment,
    });
    expect(format).toMatchObject({
      code: 64,
      stdout: "",
      stderr: 'turnloop: --format must be html, markdown, json or jsonl, not "pdf"\n',
    });
    const missing = await runCli(["sessions", "view", "ffffffff", "--no-open"], {
      cwd: session.home,
      env: environment,
    });
    // An id that names no session is a usage error (test/cli/session-prefix.test.ts).
    expect(missing.code).toBe(64);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^turnloop: .*ffffffff/);
  });
});

describe("marks before their prompt", () => {
  test("instructions loaded before the prompt is logged are N ms before it, not +-N ms", async () => {
    const server = await startFakeModelServer();
    const home = await makeHome("turnloop-marks-home-");
    const repository = await mkdtemp(join(tmpdir(), "turnloop-marks-repo-"));
    try {
      await writeFile(join(repository, "AGENTS.md"), "Answer briefly.\n");
      const environment = cleanEnvironment({
        TURNLOOP_HOME: home,
        TURNLOOP_MODEL: "openai-compatible:fake-model",
        TURNLOOP_BASE_URL: `${server.url}/v1`,
      });
      server.enqueue({ text: "Short answer." });
      const prompt = await runCli(["-p", "hi"], { cwd: repository, env: environment });
      expect(prompt.code).toBe(0);
      const sessionId = /session ([0-9a-f-]{36})/.exec(prompt.stderr)?.[1] ?? "no session id";
      const log = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
      const types = log
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).type);
      expect(types.indexOf("session.instructions_loaded")).toBeLessThan(
        types.indexOf("user.message"),
      );
      const markdown = await runCli(["sessions", "export", sessionId, "--format", "markdown"], {
        cwd: repository,
        env: environment,
      });
      expect(markdown.code).toBe(0);
      expect(markdown.stdout).toMatch(
        /^- \*\*instructions\*\* (at \+\d+ ms|\d+ ms before the prompt): instructions: 1 file$/m,
      );
      expect(markdown.stdout).not.toContain("+-");
      const html = await runCli(["sessions", "export", sessionId, "--format", "html"], {
        cwd: repository,
        env: environment,
      });
      expect(html.stdout).toContain("function formatOffset(ms)");
      expect(html.stdout).not.toMatch(/" \+" \+ formatDuration\(mark\.at/);
    } finally {
      await server.close();
      await removeTree(home);
      await removeTree(repository);
    }
  });
});

describe("turnloop sessions view opens the page", () => {
  test("with the system opener when there is a display, and not without one", async () => {
    const bin = await mkdtemp(join(tmpdir(), "turnloop-opener-"));
    try {
      const opened = join(bin, "opened.txt");
      // Each opening adds a line: the run's OPENED_BY and the file it was asked to open.
      await writeFile(
        join(bin, "xdg-open"),
        `#!/bin/sh\nprintf '%s %s\\n' "$OPENED_BY" "$1" >> "${opened}"\n`,
      );
      await chmod(join(bin, "xdg-open"), 0o755);
      const environment = cleanEnvironment({
        TURNLOOP_HOME: session.home,
        PATH: `${bin}:${process.env.PATH}`,
      });
      const view = (openedBy: string, display: NodeJS.ProcessEnv) =>
        runCli(["sessions", "view", session.sessionId], {
          cwd: session.home,
          env: { ...environment, OPENED_BY: openedBy, ...display },
        });
      /** The lines the opener wrote, once there are `count` of them. */
      const openings = (count: number) =>
        vi.waitFor(
          async () => {
            const lines = (await readFile(opened, "utf8")).split("\n").slice(0, -1);
            expect(lines.length).toBeGreaterThanOrEqual(count);
            return lines;
          },
          { timeout: 20_000, interval: 20 },
        );
      const withDisplay = await view("first", { DISPLAY: ":99" });
      const file = join(session.home, "session-state", session.sessionId, "view.html");
      expect(withDisplay).toMatchObject({ code: 0, stdout: `${file}\n`, stderr: "" });
      expect(await openings(1)).toEqual([`first ${file}`]);
      const headless = await view("headless", {});
      expect(headless).toMatchObject({
        code: 0,
        stdout: `${file}\n`,
        stderr: "turnloop: no display, not opening the view (open the file above)\n",
      });
      // A later run that does open it: the headless one, started before, adds no line of its own.
      await view("last", { DISPLAY: ":99" });
      expect(await openings(2)).toEqual([`first ${file}`, `last ${file}`]);
    } finally {
      await removeTree(bin);
    }
  });
});
