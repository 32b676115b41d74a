import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

// The last trial: after a model stream broke off, the interactive terminal showed the error
// twice (the cut reply's note and the prompt's error), in the words of Node's HTTP layer
// ("terminated: aborted"). The failure is now said once, in one wording made below the faces
// (src/llm/errors.ts): the same on the terminal, on -p's stderr and in the log.

/** What every face says of a reply whose connection closed mid-stream. */
const CLOSED = "the model's stream broke off: the connection closed before the reply was complete";
/** … and of a response that ended without the wire's end of reply. */
const ENDED = "the model's stream broke off: the response ended before the reply was complete";

describe.skipIf(tmuxMissing())("a model stream that breaks off", () => {
  interactiveTest(
    "the terminal says it once, in the same words as the log",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: ["Hel", "lo"], breakAfterEvents: 2, breakBy: "reset" });
      const terminal = await fixture.openReady([], { columns: 120 });
      terminal.type("hello");
      const screen = await terminal.waitFor(/broke off/);
      const conversation = screen.slice(screen.indexOf("› hello"), screen.indexOf("─".repeat(20)));
      expect(conversation.split("\n").map((line) => line.trimEnd())).toEqual([
        "› hello",
        "",
        "Hel",
        `error: ${CLOSED}`,
        "",
      ]);
      await terminal.idle();
      terminal.key("C-d");
      await terminal.exited();
      const sessionId = printedSessionId(await terminal.screen(100));
      const events = await fixture.events(sessionId);
      expect(
        events.flatMap((event) =>
          event.type === "session.error" || event.type === "assistant.message"
            ? [[event.type, JSON.stringify(event.data.message ?? event.data.error)]]
            : [],
        ),
      ).toEqual([
        ["assistant.message", JSON.stringify({ errorType: "network", message: CLOSED })],
        ["session.error", JSON.stringify(CLOSED)],
      ]);
    },
  );

  interactiveTest(
    "-p says it once on stderr, whichever way the stream broke",
    async ({ fixture }) => {
      const run = () =>
        runCli(["-p", "hello"], { cwd: fixture.repository, env: fixture.environment() });
      fixture.server.enqueue({ text: ["Hel", "lo"], breakAfterEvents: 2, breakBy: "reset" });
      const reset = await run();
      fixture.server.enqueue({ text: ["Hel", "lo"], breakAfterEvents: 1, breakBy: "reset" });
      const early = await run();
      fixture.server.enqueue({ text: ["Hel", "lo"], breakAfterEvents: 2, breakBy: "end" });
      const ended = await run();
      const errors = (stderr: string) =>
        stderr
          .split("\n")
          .filter((line) => line.startsWith("turnloop: "))
          .map((line) => line.replace(/--resume [0-9a-f-]{36}/, "--resume <id>"));
      // Then how to try again (failed-prompt-resend.test.ts).
      const again =
        'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"';
      expect([reset, early, ended].map((result) => [result.code, errors(result.stderr)])).toEqual([
        [1, [`turnloop: ${CLOSED}`, again]],
        [1, [`turnloop: ${CLOSED}`, again]],
        [1, [`turnloop: ${ENDED}`, again]],
      ]);
    },
  );
});
