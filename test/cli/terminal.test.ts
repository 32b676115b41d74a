import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { durationWords } from "../../src/events/durations.js";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { test as cliTest } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { InteractiveTerminal, screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { requireSandbox } from "../support/sandbox.js";

// `turnloop -p` in a real terminal (tmux): permission questions, what they show, what they answer.

const skip = tmuxMissing();
/** The fixtures, with `start(args, extra)`: `turnloop …args` in a tmux terminal, closed after the test. */
const test = cliTest.extend<{
  start: (args: string[], extra?: NodeJS.ProcessEnv) => InteractiveTerminal;
}>({
  start: async ({ repository, environment }, use) => {
    await writeFile(join(repository, "notes.txt"), "alpha\nbeta\ngamma\n");
    const terminals: InteractiveTerminal[] = [];
    try {
      await use((args, extra = {}) => {
        const terminal = new InteractiveTerminal(args, {
          cwd: repository,
          env: environment({ NO_COLOR: "1", ...extra }),
          columns: 160,
          rows: 50,
        });
        terminals.push(terminal);
        return terminal;
      });
    } finally {
      for (const terminal of terminals) {
        terminal.close();
      }
    }
  },
});

test.override({ git: true });

function toolResult(model: FakeModelServer, requestIndex: number): string {
  const message = chatMessages(model, requestIndex).find((entry) => entry.role === "tool");
  return String(message?.content);
}

describe.skipIf(skip)("answers in a terminal", () => {
  const answer =
    "# Result\n\nThe **build** passes:\n\n- first item\n- second item\n\n```js\nconst x = 1;\n```\n";

  test("Markdown is rendered when stdout is a terminal", async ({ model, start }) => {
    model.enqueue({ text: answer });
    const session = start(["-p", "report"], { NO_COLOR: undefined });
    const screen = await session.waitFor(/\[exit 0\]/);
    expect(screen).toContain("The build passes:");
    expect(screen).toMatch(/^\s*[*•-] first item$/m);
    expect(screen).not.toContain("**build**");
    expect(screen).not.toContain("# Result");
    // A code block as the interactive screen draws it (one renderer, src/cli/markdown.ts): its
    // fence lines as borders, the code indented between them.
    expect(screen).toMatch(/^```js\n {2}const x = 1;\n```$/m);
  });

  test("NO_COLOR prints the Markdown as it came", async ({ model, start }) => {
    model.enqueue({ text: answer });
    const session = start(["-p", "report"]);
    const screen = await session.waitFor(/\[exit 0\]/);
    expect(screen).toContain("The **build** passes:");
    expect(screen).toContain("```js");
  });
});

describe.skipIf(skip)("the waiting line is erased before anything else is printed", () => {
  // The waiting line before a run's first output and before a later answer, in one run: a slow
  // tool call's reply, its question, then a slow answer in two pieces.
  test("a waiting line with the elapsed time shows after a second; a permission question after a slow reply, and the slow answer after it, leave none beside them nor beside the summary", async ({
    model,
    start,
  }) => {
    // Each reply waits until its waiting line has been seen.
    const firstSeen = gate();
    const secondSeen = gate();
    model.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "echo hi" }) },
        ],
        pause: { afterEvents: 0, until: firstSeen.opened },
      },
      { text: ["Said ", "hi."], pause: { afterEvents: 0, until: secondSeen.opened } },
    );
    const session = start(["-p", "say hi"], { NO_COLOR: undefined });
    await session.waitFor(/thinking… 1 s/);
    firstSeen.open();
    let screen = await session.waitFor(/\[t\] no, and tell the model why\n>/);
    expect(screen).not.toContain("thinking…");
    session.type("y");
    const waiting = await session.waitFor(/thinking… 1 s/);
    secondSeen.open();
    expect(waiting).not.toContain("Said hi.");
    screen = await session.waitFor(/\[exit 0\]/);
    expect(screen).toContain("Said hi.");
    expect(screen).not.toContain("thinking…");
    expect(screen).not.toMatch(/thinking…|running…/);
  }, 60_000);
});

describe.skipIf(skip)("permission questions in a terminal", () => {
  test("an edit shows its diff; 'no, and tell the model why' sends the reason to the model", async ({
    model,
    repository,
    start,
  }) => {
    model.enqueue(
      {
        toolCalls: [
          {
            id: "call_1",
            name: "edit",
            arguments: JSON.stringify({
              path: "notes.txt",
              old_str: "beta\n",
              new_str: "BETA\nbeta two\n",
            }),
          },
        ],
      },
      { text: "Understood, leaving it." },
    );
    const session = start(["-p", "shout beta"]);
    const screen = await session.waitFor(/no, and tell the model why\n>$/);
    expect(screen).toContain(
      [
        `    ${join(repository, "notes.txt")} (1 line becomes 2)`,
        "    1   alpha",
        "    2 - beta",
        "    2 + BETA",
        "    3 + beta two",
        "    4   gamma",
        "  [y] yes, once   [a] yes, always for edit(notes.txt) in this session   [n] no   [t] no, and tell the model why",
      ].join("\n"),
    );
    session.type("t");
    await session.waitFor(/what should the model know\? >$/);
    session.type("keep beta lowercase");
    await session.waitFor(/\[exit 0\]/);
    expect(await readFile(join(repository, "notes.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
    expect(toolResult(model, 1)).toBe(
      "Permission denied for 'edit': the user said no: keep beta lowercase",
    );
  });

  // An overwrite was previewed as new content, as if no file were there: it now shows the change
  // the tool's check found (Tool.check), the lines it replaces included.
  test("a create that overwrites a file shows what it replaces", async ({
    model,
    repository,
    start,
  }) => {
    model.enqueue(
      {
        toolCalls: [
          {
            id: "call_1",
            name: "create",
            arguments: JSON.stringify({
              path: "notes.txt",
              file_text: "alpha\nBETA\ngamma\n",
              overwrite: true,
            }),
          },
        ],
      },
      { text: "Left as it was." },
    );
    const session = start(["-p", "shout beta"]);
    const screen = await session.waitFor(/no, and tell the model why\n>$/);
    expect(screen).toContain(
      `turnloop wants to overwrite notes.txt (${join(repository, "notes.txt")})`,
    );
    expect(screen).toContain(
      [
        `    ${join(repository, "notes.txt")} (overwritten: 3 lines become 3)`,
        "    1   alpha",
        "    2 - beta",
        "    2 + BETA",
        "    3   gamma",
        "  [y] yes, once",
      ].join("\n"),
    );
    session.type("n");
    await session.waitFor(/\[exit 0\]/);
    expect(await readFile(join(repository, "notes.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
  });

  test("Ctrl-D at the question is no answer: the prompt is cancelled (exit 130), the model not asked again", async ({
    model,
    start,
    loggedEvents,
  }) => {
    model.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"touch made"}' }],
    });
    const session = start(["-p", "make it"], { TURNLOOP_MAX_RETRIES: "0" });
    await session.waitFor(/no, and tell the model why\n>$/);
    session.key("C-d");
    const screen = await session.waitFor(/\[exit 130\]/);
    const sessionId = /session ([0-9a-f-]{36})/.exec(screen)?.[1] ?? "";
    const decisions = (await loggedEvents(sessionId))
      .filter((event) => event.type === "permission.completed" || event.type === "abort")
      .map((event) => [event.type, event.data.decision ?? event.data.reason]);
    expect(decisions).toEqual([
      ["permission.completed", "cancelled"],
      ["abort", expect.any(String)],
    ]);
    expect(model.requests).toHaveLength(1);
  });

  test("a terminal stdin is never read: -p TEXT runs at once, -p - says stdin is a terminal", async ({
    model,
    start,
  }) => {
    model.enqueue({ text: "hello" });
    const session = start(["-p", "hi"]);
    await session.waitFor(/\[exit 0\]/);
    expect(chatMessages(model, 0).at(-1)).toMatchObject({ role: "user", content: "hi" });
    session.close();
    const dash = start(["-p", "-"]);
    const screen = await dash.waitFor(/\[exit 64\]/);
    expect(screen).toContain(
      "turnloop: -p - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in or give it as -p TEXT",
    );
  });

  test("a command shows in full; the time spent answering is not the tool's duration", async ({
    model,
    start,
    home,
    loggedEvents,
  }) => {
    const command = `echo ${"long-argument ".repeat(12).trim()}`;
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "Ran it." },
    );
    const session = start(["-p", "run it"]);
    const screen = await session.waitFor(/no, and tell the model why\n>$/);
    expect(screen).toContain(`    $ ${command}\n`);
    session.type("y");
    const done = await session.waitFor(/\[exit 0\]/);
    const line = done.split("\n").find((text) => text.startsWith("✓ bash"));
    const shown = /\(([\d.]+ (?:ms|s|min))\)$/.exec(line ?? "")?.[1];
    // What the log says: the call from its start to its result, less the question's wait. The
    // shown duration is that, not start to result (which the wait, a tmux round trip, lengthens).
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    const events = await loggedEvents(sessionId);
    const at = (type: string) =>
      Date.parse(events.find((event) => event.type === type)?.timestamp ?? "");
    const waited = at("permission.completed") - at("permission.requested");
    const ran = at("tool.execution_complete") - at("tool.execution_start");
    expect(waited).toBeGreaterThan(0); // the answer came after the question: the two differ
    expect(shown).toBe(durationWords(ran - waited));
  });
});

const sandboxWorks = await requireSandbox();

// A fresh user's check: a long question line (the headline with its command, the sandbox's
// note) was left to the terminal, which broke it mid-word. It is wrapped between words to the
// terminal's width; the command itself is shown as it is.
describe.runIf(!skip && sandboxWorks)("a permission question on a narrow terminal", () => {
  test("the headline and the sandbox note are wrapped between words", async ({
    model,
    repository,
    environment,
  }) => {
    const command = "echo one two three four five six";
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "Ran it." },
    );
    const terminal = new InteractiveTerminal(["-p", "run it", "--sandbox", "workspace-write"], {
      cwd: repository,
      env: environment({ NO_COLOR: "1" }),
      columns: 40,
      rows: 40,
    });
    try {
      await terminal.waitFor(/tell the model why\n>/);
      // The question's top rows, waited for whole (interactive-terminal.ts `waitForScreen`).
      const questionTop = (screen: string) => {
        const rows = screenLines(screen);
        const top = rows.findIndex((row) => row.startsWith("turnloop wants"));
        return rows.slice(top, top + 6);
      };
      await terminal.waitForScreen(
        [
          "turnloop wants to run echo one two three",
          "four five six",
          `    $ ${command}`,
          "    [sandbox: workspace-write, no",
          "      network]",
          "  [y] yes, once",
        ],
        questionTop,
      );
      terminal.type("n");
      await terminal.waitFor(/\[exit 0\]/);
    } finally {
      terminal.close();
    }
  });
});

// Last session's check: the ✗ line of a failed call was left to the terminal, which broke it
// mid-word at 40 columns. It is wrapped between words, as the question is.
describe.skipIf(skip)("a failed call's line on a narrow terminal", () => {
  test("the ✗ line is wrapped between words; the output under it is shown as printed", async ({
    model,
    repository,
    environment,
  }) => {
    const command = "echo alpha bravo charlie delta echo; exit 1";
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "It failed." },
    );
    const terminal = new InteractiveTerminal(["-p", "run it", "--allow-all-tools"], {
      cwd: repository,
      env: environment({ NO_COLOR: "1" }),
      columns: 40,
      rows: 40,
    });
    try {
      const screen = await terminal.waitFor(/\[exit 0\]/);
      // The screen's rows with the terminal's own wrapping joined (tmux -J): a row wider than 40
      // is a line the terminal broke wherever the edge fell.
      const rows = screen.split("\n").map((row) => row.trimEnd());
      const top = rows.findIndex((row) => row.startsWith("✗ bash"));
      const end = rows.indexOf("    alpha bravo charlie delta echo");
      expect(top).toBeGreaterThanOrEqual(0);
      expect(end).toBeGreaterThan(top + 1);
      const lineRows = rows.slice(top, end);
      expect(lineRows.filter((row) => row.length > 40)).toEqual([]);
      // Broken only between words: the rows joined by one space are the line.
      expect(lineRows.join(" ").replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")).toBe(
        `✗ bash ${command} failed (exit code 1) (N ms)`,
      );
    } finally {
      terminal.close();
    }
  });
});
