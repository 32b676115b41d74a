import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { Spinner } from "../../src/cli/spinner.js";
import { TerminalRenderer } from "../../src/cli/terminal-renderer.js";
import { parseEventLog } from "../../src/session/event-log.js";
import { test as cliTest } from "../support/fixtures.js";
import { InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";

// A fresh user's trial (finding 13), `-p` on a terminal: from the second permission question on,
// `⠋ running bash… 2 s` replaced the `> ` prompt while the question waited, and the typed answer
// landed on it. A spinner started twice without a stop kept its first timer drawing past every
// later stop. The events are those of that run (two commands, one question each), recorded.

const GOLDEN = new URL("../golden/two-questions-events.jsonl", import.meta.url);

describe("-p's waiting line and permission questions", () => {
  test("no waiting line is drawn while a question waits, the second one included", async () => {
    const { events } = parseEventLog(await readFile(GOLDEN));
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "hrtime"] });
    try {
      let stderr = "";
      const sink = { write: (text: string) => (stderr += text) };
      const spinner = new Spinner(sink);
      const renderer = new TerminalRenderer({ write: () => true }, sink, false, { spinner });
      const drawnWhileAsking: string[] = [];
      for (const event of events) {
        renderer.handle(event);
        if (event.type === "permission.requested") {
          // The user takes 5 s to answer.
          const before = stderr.length;
          vi.advanceTimersByTime(5000);
          drawnWhileAsking.push(stderr.slice(before));
        }
      }
      expect(drawnWhileAsking).toEqual(["", ""]);
      // The waiting line itself still works: the model is slow after the last event.
      spinner.start("thinking");
      vi.advanceTimersByTime(1500);
      expect(stderr).toContain("thinking… 1 s");
      spinner.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

const withTerminal = cliTest.extend<{ terminal: (args: string[]) => InteractiveTerminal }>({
  terminal: async ({ repository, environment }, use) => {
    const opened: InteractiveTerminal[] = [];
    try {
      await use((args) => {
        const terminal = new InteractiveTerminal(args, {
          cwd: repository,
          env: environment({ NO_COLOR: "1" }),
          columns: 160,
          rows: 40,
        });
        opened.push(terminal);
        return terminal;
      });
    } finally {
      for (const terminal of opened) {
        terminal.close();
      }
    }
  },
});
withTerminal.override({ git: true });

describe.skipIf(tmuxMissing())("-p: an 'always' answer on a terminal", () => {
  withTerminal(
    "shows the rule it creates, as the interactive screen does",
    async ({ model, repository, terminal }) => {
      await writeFile(join(repository, "notes.txt"), "alpha\n");
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"cat notes.txt"}' }] },
        { toolCalls: [{ id: "call_2", name: "bash", arguments: '{"command":"cat notes.txt"}' }] },
        { text: "Read it twice." },
      );
      const session = terminal(["-p", "read notes twice"]);
      await session.waitFor(/no, and tell the model why\n>$/);
      session.type("a");
      const screen = await session.waitFor(/\[exit 0\]/);
      expect(screen).toContain("always allowed in this session: bash(cat notes.txt)");
      // The rule covered the second call: one question only.
      expect(screen.match(/turnloop wants to run/g)).toHaveLength(1);
    },
  );
});
