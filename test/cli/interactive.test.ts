import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ANSWER_TURN, TOOL_TURN } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

describe.skipIf(tmuxMissing())("turnloop (interactive)", () => {
  // A trial of session 17's build (round 3, session 18, #5): a file created empty showed `+0
  // lines`; every face says it is empty. The trial of round 3, session 25 (#7): a README cut at
  // line 1109 of 1959 said `· 1110 lines` (its output's lines, the cut note among them). The line
  // says which lines of how many. Both in one session, one prompt each.
  interactiveTest(
    "a file created empty says so on its tool line; a cut view says which lines of how many it showed",
    async ({ fixture }) => {
      const text = Array.from({ length: 2500 }, (_, index) => `row ${index + 1}`).join("\n");
      await writeFile(join(fixture.repository, "long.txt"), `${text}\n`);
      fixture.server.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "create", arguments: '{"path":"empty.txt","file_text":""}' },
          ],
        },
        { text: "Created it." },
        { toolCalls: [{ id: "call_2", name: "view", arguments: '{"path":"long.txt"}' }] },
        {
          toolCalls: [
            { id: "call_3", name: "view", arguments: '{"path":"long.txt","view_range":[10,20]}' },
          ],
        },
        { text: "Read it." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("Make an empty file");
      const created = await terminal.waitFor(/Created it\./);
      expect(created).toMatch(/✓ create empty\.txt +[\d.]+ (?:ms|s|min) \(empty file\)/);
      await terminal.idle();
      terminal.type("Read long.txt");
      const screen = await terminal.waitFor(/Read it\./);
      expect(screen).toMatch(/✓ view long\.txt +[\d.]+ (?:ms|s|min) · lines 1–2000 of 2500\n/);
      expect(screen).toMatch(/✓ view long\.txt .*[\d.]+ (?:ms|s|min) · lines 10–20\n/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "a two-turn tool prompt: the tool line, the Markdown answer, the events in order, Ctrl-D exits with the id",
    async ({ fixture }) => {
      fixture.server.enqueue(
        {
          text: "Let me look.",
          toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"notes.md"}' }],
        },
        { text: ["The launch is on **Tuesday**", " (see `notes.md`)."] },
      );
      const terminal = await fixture.openReady();
      terminal.type("When is the launch?");
      const screen = await terminal.waitFor(/The launch is on Tuesday \(see notes\.md\)\./);
      expect(screen).toMatch(/› When is the launch\?/);
      expect(screen).toMatch(/✓ view notes\.md +[\d.]+ (?:ms|s|min) · 2 lines/);
      expect(screen).toMatch(/Let me look\./);
      // The Markdown markers are rendered, not printed.
      expect(screen).not.toMatch(/\*\*Tuesday\*\*/);
      await terminal.waitFor(/Enter send/);
      terminal.key("C-d");
      const { code } = await terminal.exited();
      expect(code).toBe(0);
      const sessionId = printedSessionId(await terminal.screen(500));
      expect(await fixture.eventTypes(sessionId)).toEqual([
        "session.start",
        "user.message",
        ...TOOL_TURN,
        ...ANSWER_TURN,
      ]);
      expect(fixture.lastMessage(1)).toContain("The launch is on Tuesday.");
    },
  );

  interactiveTest(
    "a tool call appears as soon as the model starts writing it, then runs with a live status",
    async ({ fixture }) => {
      // The call is opened with its first piece of arguments; the rest waits for the screen.
      const announced = gate();
      fixture.server.enqueue(
        {
          toolCalls: [
            {
              id: "call_1",
              name: "bash",
              arguments: ['{"command":', '"echo', " announced-", 'early"}'],
            },
          ],
          pause: { afterEvents: 3, until: announced.opened },
        },
        { text: "Ran it." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("run something");
      // Announced (assistant.tool_call_start) before its arguments are complete.
      const early = await terminal.waitFor(/● bash +…/);
      expect(early).not.toMatch(/announced-early/);
      announced.open();
      const done = await terminal.waitFor(/Ran it\./);
      expect(done).toMatch(/✓ bash echo announced-early +[\d.]+ (?:ms|s|min)\n\s+announced-early/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "a permission question answered each way (key and Enter): yes, yes-always, no, no-and-tell-why; a key that is no answer goes to the input box",
    async ({ fixture }) => {
      const bash = (id: string, command: string) => ({
        toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
      });
      fixture.server.enqueue(
        bash("call_1", "echo one > one.txt"),
        { text: "made one" },
        bash("call_2", "echo two > two.txt"),
        { text: "made two" },
        bash("call_3", "echo two > two.txt"),
        { text: "made two again" },
        bash("call_4", "rm notes.md"),
        { text: "not removed" },
        bash("call_5", "rm -rf ."),
        { text: "understood" },
      );
      const terminal = await fixture.openReady();

      terminal.type("make one");
      let screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      // The question as every face words it (permission-answers.ts), laid out at 80 columns.
      const rows = screen.split("\n").map((row) => row.trimEnd());
      const start = rows.indexOf("turnloop wants to run echo one > one.txt");
      expect(rows.slice(start, start + 7)).toEqual([
        "turnloop wants to run echo one > one.txt",
        "    $ echo one > one.txt",
        "",
        // Not all on one row: one each (interactive-permission-choices.test.ts).
        "[y] yes, once",
        "[a] yes, always for bash(echo one > one.txt) in this session",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      // A key that is no answer starts a message: it goes to the input box, which keeps the keys
      // until it is emptied (interactive-typed-ahead-questions.test.ts).
      terminal.write("qqq");
      await terminal.waitFor(/─{20,}\n *qqq *\n─{20,}/);
      terminal.write("y");
      await terminal.waitFor(/─{20,}\n *qqqy *\n─{20,}/);
      terminal.key("BSpace", "BSpace", "BSpace", "BSpace");
      await terminal.waitFor(/─{20,}\n *\n─{20,}/);
      terminal.type("y");
      await terminal.waitFor(/made one/);
      expect(await readFile(join(fixture.repository, "one.txt"), "utf8")).toBe("one\n");

      await terminal.idle();
      terminal.type("make two");
      await terminal.waitFor(/\[a\] yes, always for bash\(echo two > two\.txt\)/);
      terminal.type("a");
      await terminal.waitFor(/made two *$/m);
      await terminal.idle();
      terminal.type("make two again");
      // Allowed for the session: no question this time.
      screen = await terminal.waitFor(/made two again/);
      expect(screen.match(/\[y\] yes/g)).toBeNull();

      await terminal.idle();
      terminal.type("remove the notes");
      await terminal.waitFor(/\$ rm notes\.md/);
      terminal.type("n");
      await terminal.waitFor(/not removed/);
      expect(existsSync(join(fixture.repository, "notes.md"))).toBe(true);
      expect(fixture.lastMessage(7)).toMatch(/the user said no/);

      await terminal.idle();
      terminal.type("clean up");
      await terminal.waitFor(/\$ rm -rf \./);
      terminal.type("t");
      await terminal.waitFor(/what should the model know\?/);
      terminal.type("never delete the repository");
      await terminal.waitFor(/understood/);
      expect(fixture.lastMessage(9)).toMatch(/the user said no: never delete the repository/);
      await terminal.idle();
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
      const sessionId = printedSessionId(await terminal.screen(500));
      const decisions = (await fixture.events(sessionId))
        .filter((event) => event.type === "permission.completed")
        .map((event) => [event.data.decision, event.data.scope]);
      expect(decisions).toEqual([
        ["allowed", "once"],
        ["allowed", "session"],
        ["denied", "once"],
        ["denied", "once"],
      ]);
    },
  );

  interactiveTest(
    "Esc cancels mid-stream and Ctrl-C mid-tool; the session stays open for the next prompt",
    async ({ fixture }) => {
      fixture.server.enqueue(
        // Never ends on its own: the Escape is what ends it.
        {
          text: ["First words", ...Array.from({ length: 60 }, () => " more")],
          stallAfterEvents: 4,
        },
        { text: "Second answer." },
        { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"sleep 30"}' }] },
        { text: "Third answer." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("talk for a while");
      await terminal.waitFor(/First words/);
      terminal.key("Escape");
      await terminal.waitFor(/cancelled/);
      await terminal.idle();
      terminal.type("and now?");
      await terminal.waitFor(/Second answer\./);

      terminal.type("wait a bit");
      await terminal.waitFor(/● bash sleep 30\s+running/);
      terminal.key("C-c");
      await terminal.waitFor(/⊘ bash sleep 30\s+interrupted/);
      await terminal.idle();
      terminal.type("still there?");
      await terminal.waitFor(/Third answer\./);
      // Ctrl-C while idle asks to press it again (while busy it would cancel the prompt).
      await terminal.idle();
      expect((await terminal.exitWithCtrlC()).code).toBe(0);
      const sessionId = printedSessionId(await terminal.screen(500));
      const events = await fixture.events(sessionId);
      const types = events.map((event) => event.type);
      expect(types.filter((type) => type === "abort")).toHaveLength(2);
      expect(types.filter((type) => type === "user.message")).toHaveLength(4);
      const cancelledTurns = events.filter(
        (event) => event.type === "assistant.turn_end" && event.data.status === "cancelled",
      );
      expect(cancelledTurns.length).toBeGreaterThanOrEqual(1);
      const interrupted = events.find((event) => event.type === "tool.execution_complete");
      expect(interrupted?.data.success).toBe(false);
      // The cancelled reply's shown text is kept, and the next request sees it.
      expect(JSON.stringify(fixture.server.requests[1]?.body)).toContain("First words");
    },
  );
});
