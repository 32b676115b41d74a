import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test as cliTest } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";

// The trial of round 3 session 28 found the interactive session's questions answered by keys typed
// for a message. `-p`'s question on a terminal reads a line; a line typed while the model worked,
// before the question was shown, sat in the terminal's input and was read as its answer.

const test = cliTest.extend<{ terminal: (args: string[]) => InteractiveTerminal }>({
  terminal: async ({ repository, environment }, use) => {
    const opened: InteractiveTerminal[] = [];
    try {
      await use((args) => {
        const terminal = new InteractiveTerminal(args, {
          cwd: repository,
          env: environment({ NO_COLOR: "1" }),
          columns: 120,
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
test.override({ git: true });

describe.skipIf(tmuxMissing())("-p on a terminal: a line typed before the question", () => {
  test("is not its answer: the question waits for a line typed after it", async ({
    model,
    repository,
    terminal,
  }) => {
    const typedAhead = gate();
    const command = "echo RAN > ran.txt";
    model.enqueue(
      {
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
        pause: { afterEvents: 0, until: typedAhead.opened },
      },
      { text: "Not run." },
    );
    const session = terminal(["-p", "write the file"]);
    await session.waitFor(/thinking… 1 s/);
    // Typed while the model works: the terminal holds the line for the program, and its echo
    // moves the waiting line (redrawn in place, over the `y`) a row down.
    session.type("y");
    await session.waitFor(/thinking…[^\n]*\n[^\n]*thinking…/);
    typedAhead.open();
    await session.waitFor(/\[t\] no, and tell the model why\n> *$/);
    expect(existsSync(join(repository, "ran.txt"))).toBe(false);
    session.type("n");
    const screen = await session.waitFor(/\[exit 0\]/);
    expect(screen).toContain("Not run.");
    expect(existsSync(join(repository, "ran.txt"))).toBe(false);
    const result = chatMessages(model, 1).find((message) => message.role === "tool");
    expect(String(result?.content)).toMatch(/the user said no/);
  });
});
