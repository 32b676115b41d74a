import { describe, expect } from "vitest";
import { ANSWER_TURN } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { exitWithCtrlD, interactiveTest } from "./interactive-support.js";

// A line sent (Enter) while a prompt still runs is queued, not lost: shown as `queued › …` above
// the input box, it runs as the next prompt once the session is idle.

describe.skipIf(tmuxMissing())("turnloop (interactive): inputs sent while a prompt runs", () => {
  interactiveTest(
    "a line sent while the answer streams is shown queued, then run after it; both answers in order",
    async ({ fixture }) => {
      const rest = gate();
      fixture.server.enqueue(
        // The first answer stops after its first words until the test has sent the second line.
        {
          text: ["First answer", " goes on", " and ends."],
          pause: { afterEvents: 2, until: rest.opened },
        },
        { text: "Second answer." },
      );
      const terminal = await fixture.openReady();
      terminal.type("first question");
      await terminal.waitFor(/First answer/);
      terminal.type("second question");
      const waiting = await terminal.waitFor(/queued › second question/);
      // Not in the input box, not sent: one request so far, the first answer still unfinished.
      expect(waiting).not.toMatch(/^ *> *second question/m);
      expect(waiting).not.toContain("and ends.");
      expect(fixture.server.requests).toHaveLength(1);
      rest.open();
      const screen = await terminal.waitFor(/Second answer\./);
      const shown = [
        "› first question",
        "First answer goes on and ends.",
        "› second question",
        "Second answer.",
      ].map((text) => screen.indexOf(text));
      expect(shown.every((position) => position >= 0)).toBe(true);
      expect([...shown].sort((a, b) => a - b)).toEqual(shown);
      expect(screen).not.toContain("queued ›");
      // The second prompt went to the model after the first answer, with it in the history.
      expect(fixture.server.requests).toHaveLength(2);
      expect(fixture.lastMessage(1)).toBe("second question");
      expect(JSON.stringify(fixture.server.requests[1]?.body)).toContain(
        "First answer goes on and ends.",
      );
      await terminal.idle();
      const sessionId = await exitWithCtrlD(terminal);
      expect(await fixture.eventTypes(sessionId)).toEqual([
        "session.start",
        "user.message",
        ...ANSWER_TURN,
        "user.message",
        ...ANSWER_TURN,
      ]);
    },
  );

  interactiveTest(
    "Esc cancels the running prompt and puts the queued lines back in the input box, unsent",
    async ({ fixture }) => {
      fixture.server.enqueue(
        // Never ends on its own (a gate never opened): the Escape ends it.
        { text: ["Working", " on it"], pause: { afterEvents: 2, until: gate().opened } },
        { text: "Sent later." },
      );
      const terminal = await fixture.openReady();
      terminal.type("long task");
      await terminal.waitFor(/Working/);
      terminal.type("follow-up one");
      await terminal.waitFor(/queued › follow-up one/);
      terminal.type("follow-up two");
      await terminal.waitFor(/queued › follow-up two/);
      terminal.key("Escape");
      const screen = await terminal.idle();
      expect(screen).not.toContain("queued ›");
      expect(screen).toMatch(/─\n *follow-up one *\n *follow-up two *\n─/);
      expect(fixture.server.requests).toHaveLength(1);
      // Enter sends the two lines as one prompt.
      terminal.key("Enter");
      await terminal.waitFor(/Sent later\./);
      // The model is told its cut reply was interrupted (agent/history-notes.ts interruptionNote).
      expect(fixture.lastMessage(1)).toBe(
        "[Your previous reply was interrupted by the user before it finished.]\n\nfollow-up one\nfollow-up two",
      );
    },
  );
});
