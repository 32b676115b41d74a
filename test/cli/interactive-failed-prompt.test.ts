import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { exitWithCtrlD, interactiveTest, shownRows } from "./interactive-support.js";

// The interactive terminal after a prompt that failed for good (the model's server answered 500
// and no retry is left: the fixture sets TURNLOOP_MAX_RETRIES=0). The trial of round 3, session
// 36 (P3-2): the error showed and nothing said how to send the prompt again. The status row now
// says it until the next key, and ↑ brings the message back to edit and send, as it says.

describe.skipIf(tmuxMissing())("turnloop (interactive): a prompt that failed for good", () => {
  interactiveTest(
    "the status row says how to try again; ↑ brings the message back and Enter sends it",
    async ({ fixture }) => {
      fixture.server.enqueue(
        { status: 500, body: { error: { message: "the server is down" } } },
        { text: "Fixed it." },
      );
      const terminal = await fixture.openReady([], { columns: 100 });
      terminal.type("fix the build");
      const failed = await terminal.waitFor(/to try again/);
      expect(shownRows(failed, fixture)).toEqual([
        "turnloop in <repository>",
        "model openai-compatible:fake-model · session <id> · /help lists the",
        "commands",
        "› fix the build",
        "error: HTTP 500: the server is down",
        "───",
        "───",
        expect.stringMatching(
          /^press ↑ to edit and resend, or send "continue" to try again +fake-model · ask · ctx 0% · 0 in 0 out$/,
        ),
      ]);

      // ↑ as the row says: the message in the box, to edit; Enter sends it again.
      terminal.key("Up");
      await terminal.waitFor(/─{20,}\n *fix the build *\n─{20,}/);
      terminal.key("Enter");
      await terminal.waitFor(/Fixed it\./);
      await terminal.idle();
      expect(
        chatMessages(fixture.server, 1)
          .filter((message) => message.role !== "system")
          .map(({ role, content }) => ({ role, content })),
      ).toEqual([
        { role: "user", content: "fix the build" },
        { role: "user", content: "fix the build" },
      ]);
      await exitWithCtrlD(terminal);
    },
  );
});
