import { describe } from "vitest";
import { type InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import {
  type InteractiveFixture,
  interactiveTest,
  printedSessionId,
} from "./interactive-support.js";

/**
 * A fresh user's trial: `/help` at 50 columns broke each description mid-row (the list is padded
 * to its widest command, 45 columns, so a description started past the room left and wrapped as
 * prose at the left edge), and the `/mc` menu at 120 columns ended a row mid-word ("… to free
 * context; recent"). A `term  description` line whose column leaves too little room now puts its
 * description on rows of its own under the term (text-wrap.ts); a menu description is cut at a
 * word, marked `…` (interactive/completion.ts). The whole screen at 40, 50, 80 and 120 columns; the session id
 * and the folder are the things replaced.
 */

const WIDTHS = [40, 50, 80, 120] as const;
const rule = (columns: number) => "─".repeat(columns);

/**
 * Types `text` (then Enter if `enter`) in `terminal`, and waits until the whole screen is
 * `expected` (interactive-terminal.ts `waitForScreen`: a pattern can match a screen caught between
 * two writes of one redraw), `sessionId` and the repository replaced; fails with the diff against
 * the last screen.
 */
async function expectScreenAfter(
  fixture: InteractiveFixture,
  terminal: InteractiveTerminal,
  sessionId: string,
  text: string,
  enter: boolean,
  expected: string[],
): Promise<void> {
  if (enter) {
    terminal.type(text);
  } else {
    terminal.write(text);
  }
  await terminal.waitForScreen(expected, (screen) =>
    screen
      .replace(sessionId, "SESSION-ID")
      .replace(fixture.repository, "REPO")
      .split("\n")
      .map((line) => line.trimEnd()),
  );
}

const HELP: Record<(typeof WIDTHS)[number], string[]> = {
  40: [
    "turnloop in REPO",
    "model openai-compatible:fake-model ·",
    "session",
    "SESSION-ID ·",
    "/help lists the commands",
    "",
    "/help",
    "  /help",
    "      List the commands",
    "  /model [provider:model]",
    "      Show the model, or switch to",
    "      another one for the next prompts",
    "  /mode [ask | auto | autopilot]",
    "      Show the mode, or switch: ask,",
    "      auto or autopilot",
    "  /usage",
    "      Tokens and cost of this session so",
    "      far",
    "  /sessions",
    "      List the sessions of this folder,",
    "      newest first",
    "  /compact [what the summary should",
    "      focus on]",
    "      Summarise the older conversation",
    "      to free context; recent turns stay",
    "      as they are",
    "  /mcp",
    "      The session's MCP servers: state",
    "      and tool count",
    "  /permissions [remove N | save]",
    "      The permission rules in force and",
    "      where each comes from; remove or",
    "      save grants",
    "  /new, /clear",
    "      Start a new session in this folder",
    "  /resume [session id or prefix]",
    "      Reopen a session of this folder (a",
    "      picker without an id)",
    "  /exit, /quit",
    "      Close the session and quit",
    rule(40),
    "",
    rule(40),
    "Enter send...  fake-model · ask · ctx 0%",
  ],
  50: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session",
    "SESSION-ID · /help lists",
    "the commands",
    "",
    "/help",
    "  /help",
    "      List the commands",
    "  /model [provider:model]",
    "      Show the model, or switch to another one for",
    "      the next prompts",
    "  /mode [ask | auto | autopilot]",
    "      Show the mode, or switch: ask, auto or",
    "      autopilot",
    "  /usage",
    "      Tokens and cost of this session so far",
    "  /sessions",
    "      List the sessions of this folder, newest",
    "      first",
    "  /compact [what the summary should focus on]",
    "      Summarise the older conversation to free",
    "      context; recent turns stay as they are",
    "  /mcp",
    "      The session's MCP servers: state and tool",
    "      count",
    "  /permissions [remove N | save]",
    "      The permission rules in force and where each",
    "      comes from; remove or save grants",
    "  /new, /clear",
    "      Start a new session in this folder",
    "  /resume [session id or prefix]",
    "      Reopen a session of this folder (a picker",
    "      without an id)",
    "  /exit, /quit",
    "      Close the session and quit",
    rule(50),
    "",
    rule(50),
    "Enter send · Ctrl-J ...  fake-model · ask · ctx 0%",
  ],
  80: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session",
    "SESSION-ID · /help lists the commands",
    "",
    "/help",
    "  /help                                        List the commands",
    "  /model [provider:model]                      Show the model, or switch to",
    "                                               another one for the next prompts",
    "  /mode [ask | auto | autopilot]               Show the mode, or switch: ask,",
    "                                               auto or autopilot",
    "  /usage                                       Tokens and cost of this session",
    "                                               so far",
    "  /sessions                                    List the sessions of this folder,",
    "                                               newest first",
    "  /compact [what the summary should focus on]  Summarise the older conversation",
    "                                               to free context; recent turns",
    "                                               stay as they are",
    "  /mcp                                         The session's MCP servers: state",
    "                                               and tool count",
    "  /permissions [remove N | save]               The permission rules in force and",
    "                                               where each comes from; remove or",
    "                                               save grants",
    "  /new, /clear                                 Start a new session in this",
    "                                               folder",
    "  /resume [session id or prefix]               Reopen a session of this folder",
    "                                               (a picker without an id)",
    "  /exit, /quit                                 Close the session and quit",
    rule(80),
    "",
    rule(80),
    "Enter send · Ctrl-J newline · / comma...  fake-model · ask · ctx 0% · 0 in 0 out",
  ],
  120: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session SESSION-ID · /help lists the commands",
    "",
    "/help",
    "  /help                                        List the commands",
    "  /model [provider:model]                      Show the model, or switch to another one for the next prompts",
    "  /mode [ask | auto | autopilot]               Show the mode, or switch: ask, auto or autopilot",
    "  /usage                                       Tokens and cost of this session so far",
    "  /sessions                                    List the sessions of this folder, newest first",
    "  /compact [what the summary should focus on]  Summarise the older conversation to free context; recent turns stay as",
    "                                               they are",
    "  /mcp                                         The session's MCP servers: state and tool count",
    "  /permissions [remove N | save]               The permission rules in force and where each comes from; remove or save",
    "                                               grants",
    "  /new, /clear                                 Start a new session in this folder",
    "  /resume [session id or prefix]               Reopen a session of this folder (a picker without an id)",
    "  /exit, /quit                                 Close the session and quit",
    rule(120),
    "",
    rule(120),
    "Enter send · Ctrl-J newline · / commands · @ file · ! shell · Ctrl-D exit         fake-model · ask · ctx 0% · 0 in 0 out",
  ],
};

const MENU: Record<(typeof WIDTHS)[number], string[]> = {
  40: [
    "turnloop in REPO",
    "model openai-compatible:fake-model ·",
    "session",
    "SESSION-ID ·",
    "/help lists the commands",
    rule(40),
    " /mc",
    rule(40),
    " → mcp",
    "   compact",
    "Enter send...  fake-model · ask · ctx 0%",
  ],
  50: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session",
    "SESSION-ID · /help lists",
    "the commands",
    rule(50),
    " /mc",
    rule(50),
    " → mcp         The session's MCP servers…",
    "   compact     what the summary should focus…",
    "Enter send · Ctrl-J ...  fake-model · ask · ctx 0%",
  ],
  80: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session",
    "SESSION-ID · /help lists the commands",
    rule(80),
    " /mc",
    rule(80),
    " → mcp         The session's MCP servers: state and tool count",
    "   compact     what the summary should focus on (optional) — Summarise the…",
    "Enter send · Ctrl-J newline · / comma...  fake-model · ask · ctx 0% · 0 in 0 out",
  ],
  120: [
    "turnloop in REPO",
    "model openai-compatible:fake-model · session SESSION-ID · /help lists the commands",
    rule(120),
    " /mc",
    rule(120),
    " → mcp         The session's MCP servers: state and tool count",
    "   compact     what the summary should focus on (optional) — Summarise the older conversation to free context…",
    "Enter send · Ctrl-J newline · / commands · @ file · ! shell · Ctrl-D exit         fake-model · ask · ctx 0% · 0 in 0 out",
  ],
};

describe.skipIf(tmuxMissing())("turnloop (interactive): lists laid out at any width", () => {
  // One face a width: the /mc menu typed, then erased (the screen as it opened), then /help sent.
  for (const columns of WIDTHS) {
    interactiveTest(`the /mc menu, then /help, at ${columns} columns`, async ({ fixture }) => {
      const terminal = await fixture.openReady([], { columns, rows: 50 });
      // The banner is drawn once the session is open: after it, the screen changes only by the keys.
      const banner = await terminal.waitFor(/lists\s+the commands/);
      const sessionId = printedSessionId(banner.replace(/\n/g, " "));
      await expectScreenAfter(fixture, terminal, sessionId, "/mc", false, MENU[columns]);
      terminal.key("BSpace", "BSpace", "BSpace");
      await terminal.waitUntil(
        (screen) => !screen.includes("/mc") && !screen.includes("→ mcp"),
        "the menu closed with the text erased",
      );
      await expectScreenAfter(fixture, terminal, sessionId, "/help", true, HELP[columns]);
    });
  }
});
