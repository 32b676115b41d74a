import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { gate } from "../support/gate.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry } from "../support/mcp/servers.js";
import { interactiveTest, pastSession, printedSessionId } from "./interactive-support.js";

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
const LONG_ANSWER = `one. ${"The first answer, long enough to be worth summarising. ".repeat(20)}`;

describe.skipIf(tmuxMissing())("turnloop (interactive): commands and sessions", () => {
  interactiveTest(
    "slash commands of each kind: text (/help, /usage, /sessions), settings (/model, /mode), session (/new), Tab completion, an unknown one",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Hello there.", usage: { input: 1200, output: 34 } });
      const terminal = await fixture.openReady([], { rows: 40 });
      terminal.type("/help");
      let screen = await terminal.waitFor(/\/exit, \/quit\s+Close the session and quit/);
      expect(screen).toMatch(/\/model \[provider:model\]\s+Show the model/);
      expect(screen).toMatch(/\/mode \[ask \| auto \| autopilot\]/);

      terminal.type("hi");
      await terminal.waitFor(/Hello there\./);
      // A busy session ignores Enter: wait for the prompt to end before the command.
      await terminal.idle();
      terminal.type("/usage");
      screen = await terminal.waitFor(/output tokens:\s+34/);
      expect(screen).toMatch(/turns: +1 *$/m);
      expect(screen).toMatch(/input tokens:\s+1200/);

      terminal.type("/mode auto");
      await terminal.waitFor(/mode: auto \(commands run in the sandbox/);
      // The status line shows the sandbox policy of mode auto's commands (issue 23).
      await terminal.waitFor(/fake-model · auto · workspace-write · /);
      terminal.type("/mode sideways");
      await terminal.waitFor(/unknown mode "sideways"/);
      terminal.type("/model openai-compatible:other-model");
      await terminal.waitFor(/other-model · auto · /);
      // A bare name runs on the provider in use (the session-28 trial: it was refused as unknown).
      terminal.type("/model third-model");
      await terminal.waitFor(/model: openai-compatible:third-model/);
      await terminal.waitFor(/third-model · auto · /);
      terminal.type("/model nosuch:x");
      await terminal.waitFor(/unknown model "nosuch:x"/);
      // A near miss of a provider is named, as a mistyped flag or config key is (trial 30).
      terminal.type("/model anthropc:foo");
      await terminal.waitFor(/unknown model "anthropc:foo" \(did you mean "anthropic:foo"\?\)\./);
      // A command that takes nothing says so rather than ignoring what follows it (trial 30).
      terminal.type("/usage extra");
      await terminal.waitFor(/\/usage takes no argument \(not "extra"\); type \/usage alone/);

      // Tab completes a command name.
      terminal.write("/ses");
      terminal.key("Tab");
      // The input box between its two rules holds the completed name (/help's list names
      // /sessions too, so the name alone on the screen is no gate).
      await terminal.waitFor(/─{20,}\n *\/sessions *\n─{20,}/);
      terminal.key("Enter");
      await terminal.waitFor(/\* [0-9a-f]{8} +just now +hi/);

      terminal.type("/mcp");
      await terminal.waitFor(/no MCP servers/);

      terminal.type("/frobnicate");
      await terminal.waitFor(/unknown command \/frobnicate; \/help lists them/);

      terminal.type("/new");
      screen = await terminal.waitFor(/new session [0-9a-f-]{36}/);
      const newId = /new session ([0-9a-f-]{36})/.exec(screen)?.[1];
      expect(screen).not.toMatch(/Hello there\./);
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
      // The new session had no prompt: it was not saved (issue 24 item 7).
      expect(await terminal.screen(500)).toContain("no prompt was sent: the session was not saved");
      expect(await readdir(join(fixture.home, "session-state"))).not.toContain(newId);
    },
  );

  interactiveTest(
    "MCP servers of --mcp-config start with the session: /mcp lists them, their tools are offered",
    async ({ fixture }) => {
      const config = join(fixture.repository, "servers.json");
      await writeFile(config, JSON.stringify({ mcpServers: { t: stdioEntry() } }));
      fixture.server.enqueue({ text: "Seen the tools." });
      // The bounded start-up wait is tested in test/tools/mcp.test.ts; here a loaded machine must not
      // let the prompt go ahead before the server is up, so the wait is long.
      const terminal = await fixture.openReady(["--mcp-config", config], {
        env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "60000" },
      });
      // A prompt waits for the servers to start (bounded); then /mcp shows the server connected.
      terminal.type("which tools?");
      await terminal.waitFor(/Seen the tools\./);
      // A busy session ignores Enter: wait for the prompt to end before the command.
      await terminal.idle();
      terminal.type("/mcp");
      await terminal.waitFor(/t \(stdio\): connected, \d+ tools?/);
      const body = fixture.server.requests[0]?.body as {
        tools?: Array<{ function: { name: string } }>;
      };
      expect((body.tools ?? []).map((tool) => tool.function.name)).toContain("t__echo");
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "/compact [instructions] runs a compaction turn: one dim line with the tokens, its instructions sent; nothing to compact is said, nothing written",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: LONG_ANSWER });
      const terminal = await fixture.openReady([], { rows: 40 });
      // Before any prompt there is no conversation at all: said so, no model request.
      terminal.type("/compact");
      await terminal.waitFor(/nothing to compact: there is no conversation yet/);
      await terminal.idle();
      expect(fixture.server.requests).toHaveLength(0);
      terminal.type("first");
      await terminal.waitFor(/\bone\b/);
      await terminal.idle();
      // One exchange leaves nothing older than the latest turn: refused as `sessions compact`
      // refuses, said once, and (round 3, session 20) no compaction written to the log.
      terminal.type("/compact");
      await terminal.waitFor(/nothing to compact: the conversation is only its most recent turn/);
      await terminal.idle();
      expect((await terminal.screen(100)).match(/nothing to compact/g)).toHaveLength(2);
      fixture.server.enqueue({ text: "two" });
      terminal.type("second");
      await terminal.waitFor(/\btwo\b/);
      await terminal.idle();
      fixture.server.enqueue({ text: "Task: count." });
      terminal.type("/compact keep the numbers");
      await terminal.waitFor(/compacted the conversation \(manual\): \d+ → \d+ tokens/);
      expect(JSON.stringify(fixture.server.requests.at(-1)?.body)).toContain("keep the numbers");
      await terminal.idle();
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
      const sessionId = printedSessionId(await terminal.screen(500));
      const compactions = (await fixture.events(sessionId)).filter(
        (event) => event.type === "session.compaction_complete",
      );
      expect(compactions.map((event) => [event.data.trigger, event.data.success])).toEqual([
        ["manual", true],
      ]);
    },
  );

  interactiveTest(
    "--resume opens a picker of this folder's sessions (first prompt, age) and shows the chosen one's history; --continue takes the one last worked in, not the one last opened",
    async ({ fixture }) => {
      await pastSession(fixture, "first question about apples", "Apples are red.");
      const second = await pastSession(fixture, "second question about pears", "Pears are green.");
      const terminal = fixture.open(["--resume"]);
      let screen = await terminal.waitFor(/Resume a session of this folder/);
      expect(screen).toMatch(/[0-9a-f]{8} {2}just now {2}second question about pears/);
      expect(screen).toMatch(/first question about apples/);
      // Newest first: the second session is highlighted; Down picks the first.
      terminal.key("Down", "Enter");
      screen = await terminal.waitFor(/Apples are red\./);
      expect(screen).toMatch(/› first question about apples/);
      expect(screen).not.toMatch(/Pears/);
      fixture.server.enqueue({ text: "Still red." });
      terminal.type("and now?");
      await terminal.waitFor(/Still red\./);
      // The model saw the resumed history.
      expect(JSON.stringify(fixture.server.requests.at(-1)?.body)).toContain("Apples are red.");
      terminal.type("/resume");
      await terminal.waitFor(/Resume a session/);
      terminal.key("Enter");
      await terminal.waitFor(/Pears are green\./);
      terminal.type("/exit");
      await terminal.exited();
      expect(printedSessionId(await terminal.screen(500))).toBe(second);

      // The pears session was only opened and read: --continue takes the apples one, where the
      // last prompt was (README, `--continue`), as a session only read by an editor stays put.
      const continued = fixture.open(["--continue"]);
      await continued.waitFor(/Still red\./);
      expect(await continued.screen()).not.toMatch(/Pears/);
      continued.key("C-d");
      expect((await continued.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "exit codes: 64 without a model, 1 when the session is open elsewhere, 0 for Ctrl-D, /exit and Ctrl-C twice",
    async ({ fixture }) => {
      const noModel = fixture.open([], { env: { TURNLOOP_MODEL: "" } });
      const { code } = await noModel.exited();
      expect(code).toBe(64);
      expect(await noModel.screen(500)).toMatch(/no model configured/);

      // A stored session (one opened and closed without a prompt is not saved).
      const sessionId = await pastSession(fixture, "hi", "Hello.");
      const holder = await fixture.openReady(["--resume", sessionId.slice(0, 8)]);
      const second = fixture.open(["--resume", sessionId]);
      expect((await second.exited()).code).toBe(1);
      expect(await second.screen(500)).toMatch(/open|lock/i);
      expect((await holder.exitWithCtrlC()).code).toBe(0);
    },
  );

  interactiveTest(
    "the terminal is given back after a kill: raw mode off, echo on, cursor shown",
    async ({ fixture }) => {
      // The answer stops after its first words (a gate never opened): still streaming at the kill.
      fixture.server.enqueue({
        text: ["Working", ...Array.from({ length: 200 }, () => " …")],
        pause: { afterEvents: 3, until: gate().opened },
      });
      const terminal = await fixture.openReady();
      terminal.type("go");
      await terminal.waitFor(/Working/);
      process.kill(terminal.cliPid(), "SIGTERM");
      const { code, stty } = await terminal.exited();
      expect(code).toBe(143);
      expect(stty).toMatch(/(^| )icanon( |$)/);
      expect(stty).toMatch(/(^| )echo( |$)/);
      expect(terminal.cursorVisible()).toBe(true);
      const screen = await terminal.screen(500);
      const sessionId = printedSessionId(screen);
      // The prompt was cancelled cleanly, not cut off mid-turn, and the screen says by what, as
      // the log's abort does (a cancel with Esc or Ctrl-C says only "cancelled").
      expect(await fixture.eventTypes(sessionId)).toContain("abort");
      expect(screen).toMatch(/^ *cancelled by SIGTERM *$/m);
    },
  );
});
