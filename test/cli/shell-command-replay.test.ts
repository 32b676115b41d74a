import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventsPath } from "../../src/session/paths.js";
import { AcpHarness, normalise } from "../acp/support.js";
import { runCli } from "../support/cli.js";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

/**
 * A fresh user's trial: a reopened session showed a `!command`'s prompt as the model got it
 * ("The user ran `ls` in the terminal (exit 0). Its output: …" then the prompt), not as typed.
 * The message still carries the output to the model; every face that shows it again shows the
 * `!command` as it ran, then what was typed (session/prompt-attachments.ts): the full screen
 * reopened with --resume, the plain-line face, ACP `session/load`'s replay (`!command`, then
 * the prompt).
 */

/** The same words as the live screen's line under the command (session/prompt-attachments.ts `ranEnding`). */
const RAN = "exit 0 · the output goes to the model with your next prompt";

describe.skipIf(tmuxMissing())("a reopened session's !command", () => {
  interactiveTest(
    "is shown as typed on the full screen, the plain-line face and ACP's replay",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Two files." });
      const live = await fixture.openReady([], { columns: 80 });
      live.type("!printf 'a.txt\\nb.txt\\n'");
      await live.waitFor(/the output goes to the model with your next prompt/);
      live.type("what is here?");
      await live.waitFor(/Two files\./);
      await live.idle();
      live.key("C-d");
      await live.exited();
      const sessionId = printedSessionId(await live.screen(500));
      // The model got the output with the prompt.
      expect(fixture.lastMessage(0)).toBe(
        "The user ran `printf 'a.txt\\nb.txt\\n'` in the terminal (exit 0). Its output:\n" +
          "```\na.txt\nb.txt\n```\n\nwhat is here?",
      );

      const reopened = fixture.open(["--resume", sessionId], { columns: 80 });
      // The replayed rows, waited for whole (interactive-terminal.ts `waitForScreen`).
      const replayed = (screen: string) => {
        const rows = screenLines(screen);
        const start = rows.indexOf("$ printf 'a.txt\\nb.txt\\n'");
        return rows.slice(start, start + 8);
      };
      const screen = await reopened.waitForScreen(
        [
          "$ printf 'a.txt\\nb.txt\\n'",
          "a.txt",
          "b.txt",
          RAN,
          "",
          "› what is here?",
          "",
          "Two files.",
        ],
        replayed,
      );
      expect(screen).not.toMatch(/The user ran/);
      reopened.key("C-d");
      await reopened.exited();

      const plain = await runCli(["--resume", sessionId], {
        cwd: fixture.repository,
        env: fixture.environment(),
        stdin: "",
      });
      expect(plain.stdout.split("\n").slice(2, 9), plain.stderr).toEqual([
        "$ printf 'a.txt\\nb.txt\\n'",
        "a.txt",
        "b.txt",
        RAN,
        "> what is here?",
        "Two files.",
        "[stop: end_turn]",
      ]);

      const harness = await AcpHarness.start();
      const log = await readFile(eventsPath(fixture.home, sessionId), "utf8");
      const path = eventsPath(harness.home, sessionId);
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, log.split(fixture.repository).join(harness.cwd));
      await harness.loadSession(sessionId);
      const updates = normalise(harness.updates(sessionId), harness.cwd);
      expect(updates.slice(0, 2)).toEqual([
        {
          sessionUpdate: "user_message_chunk",
          content: { type: "text", text: "!printf 'a.txt\\nb.txt\\n'\n\nwhat is here?" },
          messageId: expect.any(String),
        },
        { sessionUpdate: "session_info_update", title: "what is here?", updatedAt: "<time>" },
      ]);
    },
    60_000,
  );
});
