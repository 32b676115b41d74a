import { execFileSync } from "node:child_process";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

describe.skipIf(tmuxMissing())("turnloop (interactive): input and display", () => {
  interactiveTest(
    "Ctrl-C on a line with text empties the box at once; on the empty line it asks once more, then exits",
    async ({ fixture }) => {
      const terminal = await fixture.openReady([]);
      terminal.write("half a thought");
      await terminal.waitFor(/half a thought/);
      terminal.key("C-c");
      // The box is drawn empty without any further key (the text is gone from the screen).
      await terminal.waitFor(/^(?![\s\S]*half a thought)[\s\S]*─{20,}\n[ >]*\n─{20,}/);
      expect((await terminal.exitWithCtrlC()).code).toBe(0);
    },
  );

  interactiveTest(
    "a first prompt on the command line, Ctrl-J for a newline, a large paste kept as one block, ↑ recalls inputs of earlier sessions",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "One." }, { text: "Two." }, { text: "Three." });
      const terminal = fixture.open(["say one"]);
      await terminal.waitFor(/One\./);
      terminal.write("line one");
      terminal.key("C-j");
      terminal.write("line two");
      await terminal.waitFor(/line one\s*\n.*line two/);
      // The first prompt must have ended, or its Enter is ignored (the box keeps the text).
      await terminal.idle();
      terminal.key("Enter");
      await terminal.waitFor(/Two\./);
      expect(fixture.lastMessage(1)).toBe("line one\nline two");
      await terminal.idle();

      const pasted = Array.from({ length: 40 }, (_, index) => `pasted line ${index + 1}`).join(
        "\n",
      );
      terminal.paste(pasted);
      await terminal.waitFor(/\[paste #1 \+40 lines\]/);
      terminal.key("Enter");
      await terminal.waitFor(/Three\./);
      expect(fixture.lastMessage(2)).toBe(pasted);
      await terminal.idle();
      terminal.key("C-d");
      await terminal.exited();

      const next = await fixture.openReady();
      next.key("Up");
      await next.waitFor(/pasted line 40/);
      next.key("C-c");
      next.key("C-d");
      expect((await next.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "@path attaches a file to the prompt; !command shows its output and offers it to the model with the next prompt",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Tuesday, says the file." }, { text: "Saw the output." });
      // The !command runs in the session's command environment: no key, pagers off.
      const terminal = await fixture.openReady([], {
        env: { TURNLOOP_API_KEY: "tl-secret-key-0000" },
      });
      terminal.write("what does @note");
      terminal.key("Tab");
      await terminal.waitFor(/@notes\.md/);
      terminal.type("say?");
      await terminal.waitFor(/Tuesday, says the file\./);
      expect(await terminal.screen()).toMatch(/attached notes\.md/);
      const first = fixture.lastMessage(0);
      expect(first).toMatch(/^what does @notes\.md say\?/);
      expect(first).toContain(
        "Attached file notes.md:\n```\n# notes\nThe launch is on Tuesday.\n```",
      );

      // A line typed while the prompt is still ending is not sent: wait for the idle status line.
      await terminal.idle();
      terminal.type('!echo shell-said-hello "[$TURNLOOP_API_KEY]" "$PAGER"; exit 3');
      const screen = await terminal.waitFor(/exit 3 · the output goes to the model/);
      expect(screen).toMatch(
        /\$ echo shell-said-hello "\[\$TURNLOOP_API_KEY\]" "\$PAGER"; exit 3\s*\nshell-said-hello \[\] cat\s*\n/,
      );
      // No model request for a shell command.
      expect(fixture.server.requests).toHaveLength(1);
      await terminal.idle();
      terminal.type("did you see it?");
      await terminal.waitFor(/Saw the output\./);
      const second = fixture.lastMessage(1);
      expect(second).toContain(
        'The user ran `echo shell-said-hello "[$TURNLOOP_API_KEY]" "$PAGER"; exit 3` in the terminal (exit 3). Its output:\n```\nshell-said-hello [] cat\n```',
      );
      expect(second.endsWith("did you see it?")).toBe(true);
      terminal.key("C-d");
      await terminal.exited();
    },
  );

  interactiveTest(
    "80×24, then narrower and wider: every line fits, the input box and status line stay drawn",
    async ({ fixture }) => {
      fixture.server.enqueue({
        text: "A long answer that has to wrap when the terminal gets narrow, word after word after word.",
      });
      const terminal = await fixture.openReady([], { columns: 80, rows: 24 });
      terminal.type("talk");
      await terminal.waitFor(/after word\./);
      // The answer is drawn before the prompt ends; the status line returns to the keys after.
      await terminal.idle();
      terminal.resize(44, 20);
      // A resize takes more than one redraw: wait for the whole state, not the first border.
      const narrow = await terminal.waitUntil(
        (screen) =>
          /^─{44}$/m.test(screen) &&
          screen.split("\n").every((line) => [...line.trimEnd()].length <= 44) &&
          /fake-model · ask/.test(screen) &&
          screen.replace(/\s+/g, " ").includes("word after word after word."),
        "every line fits 44 columns, with the border, the status line and the whole answer",
      );
      expect(narrow).toMatch(/^─{44}$/m);
      terminal.resize(120, 30);
      const wide = await terminal.waitUntil(
        (screen) =>
          /^─{120}$/m.test(screen) &&
          /Enter send · Ctrl-J newline · \/ commands · @ file · ! shell/.test(screen),
        "the box is 120 columns wide with the keys on the status line",
      );
      expect(wide).toMatch(/^─{120}$/m);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "NO_COLOR: no colour escapes; TERM=dumb: plain lines with the same commands and questions",
    async ({ fixture }) => {
      // SGR colours (foreground 30–38, background 40–48, bright 90–107); 39/49 are resets.
      const colour = new RegExp(`${String.fromCharCode(27)}\\[(3[0-8]|4[0-8]|9\\d|10\\d)(;\\d+)*m`);
      for (const noColor of [undefined, "1"]) {
        fixture.server.enqueue({ text: "Plain **answer** with `code`." });
        const terminal = await fixture.openReady([], { env: { NO_COLOR: noColor } });
        terminal.type("hi");
        await terminal.waitFor(/Plain answer with code\./);
        const escaped = execFileSync(
          "tmux",
          ["-L", terminal.socketName, "capture-pane", "-p", "-e", "-t", "main"],
          { encoding: "utf8" },
        );
        if (noColor === undefined) {
          expect(escaped).toMatch(colour);
        } else {
          expect(escaped).not.toMatch(colour);
        }
        terminal.key("C-d");
        await terminal.exited();
      }

      fixture.server.enqueue(
        {
          toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo dumb > d.txt"}' }],
        },
        { text: "Done in plain mode." },
      );
      const dumb = fixture.open([], { env: { TERM: "dumb" } });
      await dumb.waitFor(/^> *$/m);
      dumb.type("/mode");
      await dumb.waitFor(/\* ask: /);
      dumb.type("write it");
      // The choices do not fit on one row: one each (text-wrap.ts).
      await dumb.waitFor(
        /\[y\] yes, once\n[\s\S]*\n\[n\] no\n\[t\] no, and tell the model why > *$/m,
      );
      dumb.type("y");
      await dumb.waitFor(/Done in plain mode\./);
      const plain = await dumb.screen();
      expect(plain).not.toMatch(/─{10}/);
      dumb.type("/exit");
      expect((await dumb.exited()).code).toBe(0);
      const sessionId = printedSessionId(await dumb.screen(500));
      expect(await fixture.eventTypes(sessionId)).toContain("permission.completed");
    },
  );
});
