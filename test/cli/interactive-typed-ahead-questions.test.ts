import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { InteractiveTerminal } from "../support/interactive-terminal.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry, waitForLog } from "../support/mcp/servers.js";
import {
  type InteractiveFixture,
  interactiveTest,
  printedSessionId,
} from "./interactive-support.js";

/**
 * The trial of round 3 session 28: keys typed as a message answered the question that appeared
 * meanwhile. At the trust question a project's `.mcp.json` opens with, the `y` of "summarize the
 * key files" trusted the project for good and started its server (the model got " files"); at a
 * permission question the `a` of "also" allowed the command for the session and it ran. A choice
 * key now only selects and Enter confirms; a key that is no answer, and the choice keys before it,
 * go to the input box; while the input box holds text it has every key. Ordered by what the
 * screen shows, never by delays.
 */

/** How the message is typed: in one `send-keys` burst, or one `send-keys` per key. */
type Typing = "one burst" | "key by key";

/** Types `text` then Enter, as `typing` says. */
function typeMessage(terminal: InteractiveTerminal, text: string, typing: Typing): void {
  if (typing === "one burst") {
    terminal.write(`${text}\r`);
    return;
  }
  for (const key of text) {
    terminal.write(key);
  }
  terminal.key("Enter");
}

/** The question's last line while it has the keys and nothing is selected. */
const QUESTION_HAS_KEYS =
  /its key or ↑\/↓ selects an answer, Enter confirms · Esc (no|cancels the prompt) · other keys write a message/;
/** The question's last line while the input box has the keys. */
const INPUT_HAS_KEYS =
  /the input box has the keys: send your message \(Enter\) or clear it to answer here/;

/** The screen with its wrapping undone, for lines longer than the terminal. */
const unwrapped = (screen: string) => screen.replace(/\s+/g, " ");

/** Waits until the screen, its wrapping undone, matches `pattern`; returns the screen. */
function waitUnwrapped(terminal: InteractiveTerminal, pattern: RegExp): Promise<string> {
  return terminal.waitUntil((screen) => pattern.test(unwrapped(screen)), String(pattern));
}

/**
 * The trust question's set-up: a `.mcp.json` with one server (`projsrv`, logging to `log` once it
 * runs), and turnloop opened in a 100×30 terminal, which asks the question at once.
 */
async function openWithProjectServer(
  fixture: InteractiveFixture,
): Promise<{ terminal: InteractiveTerminal; log: string }> {
  const log = join(fixture.home, "project-server.log");
  await writeFile(
    join(fixture.repository, ".mcp.json"),
    JSON.stringify({ mcpServers: { projsrv: stdioEntry("--log", log) } }),
  );
  return { terminal: fixture.open([], { columns: 100, rows: 30 }), log };
}

/** Nothing trusted: no trusted-projects.json, and the project's server never ran. */
function expectNothingTrusted(fixture: InteractiveFixture, log: string): void {
  expect(existsSync(join(fixture.home, "trusted-projects.json"))).toBe(false);
  expect(existsSync(log)).toBe(false);
}

/**
 * Round `index` (from 0) of a session's permission questions: the prompt "check" gets a reply whose
 * `bash` call waits until the message is being typed as `typing` says, then `answer` and Enter
 * answer; the message typed meanwhile is queued whole and reaches the model after the call. Every
 * round makes three requests (the call, the answer after it, the queued message's).
 */
async function permissionRound(
  fixture: InteractiveFixture,
  terminal: InteractiveTerminal,
  index: number,
  typing: Typing | "started before the question",
  answer: string,
): Promise<void> {
  const round = index + 1;
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const command = "echo COMMAND-RAN >> ran.log";
  fixture.server.enqueue(
    {
      text: `Let me look at the tests first (round ${round}).`,
      toolCalls: [{ id: `call_${round}`, name: "bash", arguments: JSON.stringify({ command }) }],
      pause: { afterEvents: 2, until: held },
    },
    { text: `done with the check (round ${round})` },
    { text: `linted (round ${round})` },
  );
  terminal.type("check");
  await terminal.waitFor(new RegExp(`Let me look at the tests first \\(round ${round}\\)`));
  const message = "also run the linter next";
  const question = /\[t\] no, and tell the model why/;
  if (typing === "started before the question") {
    terminal.write("also run");
    await terminal.waitFor(/─{20,}\n *also run *\n─{20,}/);
    // The question the round waits for next is its own: none is on the screen yet.
    expect(await terminal.screen()).not.toMatch(question);
    release();
    await terminal.waitFor(question);
    await waitUnwrapped(terminal, INPUT_HAS_KEYS);
    typeMessage(terminal, " the linter next", "key by key");
  } else {
    expect(await terminal.screen()).not.toMatch(question);
    release();
    await terminal.waitFor(question);
    typeMessage(terminal, message, typing);
  }
  // Enter queued the message whole; the question still waits for its own answer.
  const screen = await terminal.waitFor(/queued › .*linter next/);
  expect(screen).toMatch(/queued › also run the linter next/);
  expect(unwrapped(screen)).toMatch(QUESTION_HAS_KEYS);
  expect(screen).toMatch(/\[a\] yes, always for bash\(echo COMMAND-RAN >> ran\.log\)/);
  expect(existsSync(join(fixture.repository, "ran.log"))).toBe(false);
  // This round's first request only: the rounds before it made three each.
  expect(fixture.server.requests).toHaveLength(3 * index + 1);
  terminal.write(answer);
  await waitUnwrapped(terminal, /selected: \[[yn]\] [^·]+· Enter confirms/);
  terminal.key("Enter");
  await terminal.waitFor(new RegExp(`linted \\(round ${round}\\)`));
  await terminal.idle();
  expect(fixture.lastMessage(3 * index + 2)).toBe(message);
  expect(existsSync(join(fixture.repository, "ran.log"))).toBe(answer === "y");
}

describe.skipIf(tmuxMissing())("turnloop (interactive): a message typed at a question", () => {
  interactiveTest.for<Typing>(["one burst", "key by key"])(
    "typed at the trust question (%s), it trusts nothing and reaches the model whole once no is confirmed",
    async (typing, { fixture }) => {
      fixture.server.enqueue({ text: "Here is the summary." });
      const { terminal, log } = await openWithProjectServer(fixture);
      await terminal.waitFor(/\[y\] yes +\[n\] no/);
      typeMessage(terminal, "summarize the key files", typing);
      // Enter sent the message: it waits for the project's servers, which wait for the answer;
      // the status line shows the question's keys (the prompt has not begun: Esc is a no).
      let screen = await terminal.waitFor(
        /working \d+s · y\/n or ↑\/↓ select · Enter confirms · Esc no/,
      );
      expect(unwrapped(screen)).toMatch(QUESTION_HAS_KEYS);
      expect(screen).toMatch(/Trust this project from now on\?/);
      expect(screen).toMatch(/\[y\] yes +\[n\] no/);
      expect(existsSync(join(fixture.home, "trusted-projects.json"))).toBe(false);
      expect(fixture.server.requests).toHaveLength(0);
      // A deliberate no: the key selects, Enter confirms.
      terminal.write("n");
      screen = await waitUnwrapped(terminal, /selected: \[n\] no · Enter confirms · Esc no/);
      terminal.key("Enter");
      screen = await terminal.waitFor(/Here is the summary\./);
      expect(screen).not.toMatch(/\[y\] yes/);
      expect(fixture.lastMessage(0)).toBe("summarize the key files");
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      expectNothingTrusted(fixture, log);
    },
  );

  interactiveTest(
    "Esc at the trust question while the input box holds a message: a no, the message kept",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Here is the summary." });
      const { terminal, log } = await openWithProjectServer(fixture);
      await waitUnwrapped(terminal, QUESTION_HAS_KEYS);
      terminal.write("summarize the key files");
      await waitUnwrapped(terminal, /the input box has the keys: .* · Esc no/);
      // Before, Esc went to the input box, which ignores it: the question stayed, unanswerable
      // until the message was sent or cleared.
      terminal.key("Escape");
      const screen = await terminal.waitUntil(
        (shown) => !/\[y\] yes/.test(shown),
        "the trust question closed",
      );
      expect(screen).toMatch(/─{20,}\n *summarize the key files *\n─{20,}/);
      expect(existsSync(join(fixture.home, "trusted-projects.json"))).toBe(false);
      terminal.key("Enter");
      await terminal.waitFor(/Here is the summary\./);
      expect(fixture.lastMessage(0)).toBe("summarize the key files");
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      expectNothingTrusted(fixture, log);
    },
  );

  interactiveTest(
    "Esc at the trust question while the message sent waits for it: a no, as both key lines say, and the message reaches the model",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Here is the summary." });
      const { terminal, log } = await openWithProjectServer(fixture);
      await waitUnwrapped(terminal, QUESTION_HAS_KEYS);
      terminal.write("summarize the key files\r");
      // Before, the status line said `Esc cancels` and the question `Esc no`, and Esc did
      // neither: the prompt had not begun, so there was nothing to cancel, and the question
      // never saw the key (round 3, session 32).
      const screen = await terminal.waitFor(
        /working \d+s · y\/n or ↑\/↓ select · Enter confirms · Esc no /,
      );
      expect(unwrapped(screen)).toMatch(
        /its key or ↑\/↓ selects an answer, Enter confirms · Esc no · other keys write a message/,
      );
      terminal.key("Escape");
      const answered = await terminal.waitFor(/Here is the summary\./);
      expect(answered).not.toMatch(/\[y\] yes/);
      expect(answered).not.toMatch(/cancelled/);
      expect(fixture.lastMessage(0)).toBe("summarize the key files");
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      expectNothingTrusted(fixture, log);
    },
  );

  interactiveTest(
    "Ctrl-C at the trust question while the message sent waits for it: cancelled unsent, as its line says; a second Ctrl-C exits",
    async ({ fixture }) => {
      const { terminal, log } = await openWithProjectServer(fixture);
      await waitUnwrapped(terminal, QUESTION_HAS_KEYS);
      terminal.write("summarize the key files\r");
      await terminal.waitFor(/working \d+s · y\/n or ↑\/↓ select · Enter confirms · Esc no /);
      // Before, Ctrl-C did nothing here: the prompt had not begun, so there was nothing to
      // cancel, and the question, which never takes Ctrl-C, stayed as it was.
      terminal.key("C-c");
      const screen = await terminal.waitUntil(
        (shown) => /press Ctrl-C again to exit/.test(shown) && /Esc no · other keys/.test(shown),
        "the cancel's line and hint under the question still open",
      );
      // The whole screen: the cancel's line, the question still open (its servers wait for it),
      // the empty input box and the status line's hint.
      const home = fixture.home;
      const shown = screen
        .split(fixture.repository)
        .join("<repo>")
        .split(home)
        .join("<home>")
        .replace(/session [0-9a-f-]{36}/, "session <id>")
        .replace(/^ +$/gm, "")
        .replace(/ +\n/g, "\n");
      expect(shown.split("\n")).toEqual([
        "turnloop in <repo>",
        "model openai-compatible:fake-model · session <id> · /help lists the",
        "commands",
        "cancelled before it began: the message was not sent (the input history keeps it)",
        "<repo>/.mcp.json wants to start MCP servers:",
        expect.stringMatching(/^ {2}projsrv: .*node .*test-server\.mjs --log$/),
        "    <home>/project-server.log",
        "They run programs from this project.",
        "Trust this project from now on?",
        "(One trust: its MCP servers, and its whole .turnloop/config.json applies.)",
        "",
        "[y] yes   [n] no",
        "its key or ↑/↓ selects an answer, Enter confirms · Esc no · other keys write a message",
        "─".repeat(100),
        "",
        "─".repeat(100),
        expect.stringMatching(
          /^press Ctrl-C again to exit +fake-model · ask · ctx 0% · 0 in 0 out$/,
        ),
      ]);
      expect(screen).not.toMatch(/working \d+s/);
      terminal.key("C-c");
      expect((await terminal.exited()).code).toBe(0);
      expect(fixture.server.requests).toHaveLength(0);
      expectNothingTrusted(fixture, log);
      // Nothing of the message was stored: the session, never begun, has no log.
      const sessionId = printedSessionId(await terminal.screen(500));
      expect(existsSync(join(fixture.home, "session-state", sessionId))).toBe(false);
    },
  );

  // The three ways of typing at a permission question, one after another in one session: each
  // round's prompt asks again (its own call, its own replies), with the rounds before it in the log.
  interactiveTest(
    "typed at a permission question (one burst, key by key, started before the question), it grants nothing and is queued whole; n or y and Enter answer",
    async ({ fixture }) => {
      const rounds: Array<{ typing: Typing | "started before the question"; answer: string }> = [
        { typing: "one burst", answer: "n" },
        { typing: "key by key", answer: "n" },
        { typing: "started before the question", answer: "y" },
      ];
      const terminal = await fixture.openReady([], { columns: 100, rows: 30 });
      for (const [index, { typing, answer }] of rounds.entries()) {
        await permissionRound(fixture, terminal, index, typing, answer);
      }
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      const decisions = (await fixture.events(printedSessionId(await terminal.screen(500))))
        .filter((event) => event.type === "permission.completed")
        .map((event) => [event.data.decision, event.data.scope]);
      // One decision a round, as each answer was: n, n, then y.
      expect(decisions).toEqual([
        ["denied", "once"],
        ["denied", "once"],
        ["allowed", "once"],
      ]);
    },
  );

  interactiveTest(
    "a question's keys: ↑/↓ move the selection, Backspace clears it, Enter with nothing selected answers nothing",
    async ({ fixture }) => {
      const { terminal, log } = await openWithProjectServer(fixture);
      await waitUnwrapped(terminal, QUESTION_HAS_KEYS);
      terminal.key("Enter");
      terminal.key("Down");
      await waitUnwrapped(terminal, /selected: \[y\] yes · Enter confirms/);
      terminal.key("Down");
      await waitUnwrapped(terminal, /selected: \[n\] no · Enter confirms/);
      terminal.key("BSpace");
      await waitUnwrapped(terminal, QUESTION_HAS_KEYS);
      terminal.key("Up");
      await waitUnwrapped(terminal, /selected: \[n\] no · Enter confirms/);
      terminal.key("Up");
      await waitUnwrapped(terminal, /selected: \[y\] yes · Enter confirms/);
      terminal.key("Enter");
      await waitForLog(log, (entries) => entries.length > 0);
      const trusted = JSON.parse(
        await readFile(join(fixture.home, "trusted-projects.json"), "utf8"),
      ) as { projects: Record<string, unknown> };
      expect(Object.keys(trusted.projects)).toEqual([fixture.repository]);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
