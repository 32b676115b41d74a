import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { ANSWERED_SESSION } from "../support/event-sequences.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Sessions don't pile up (issue 24 item 7): a session is saved at its first prompt, and
// `turnloop sessions` says how long ago each was active.

async function sessionFolders(home: string): Promise<string[]> {
  const folder = join(home, "session-state");
  return existsSync(folder) ? await readdir(folder) : [];
}

describe.skipIf(tmuxMissing())("a session is saved at its first prompt", () => {
  interactiveTest(
    "opened and closed without a prompt (and /new without one): nothing saved, nothing listed",
    async ({ fixture }) => {
      const terminal = await fixture.openReady();
      terminal.type("/new");
      await terminal.waitFor(/new session [0-9a-f-]{36}/);
      await terminal.idle();
      terminal.key("C-d");
      const { code } = await terminal.exited();
      expect(code).toBe(0);
      expect(await terminal.screen(200)).toContain("no prompt was sent: the session was not saved");
      expect(await terminal.screen(200)).not.toContain("resume it with");
      expect(await sessionFolders(fixture.home)).toEqual([]);
      const listed = await runCli(["sessions"], {
        cwd: fixture.repository,
        env: fixture.environment(),
      });
      expect(listed.stdout).toBe(`No sessions in ${fixture.home}.\n`);
    },
  );

  // A fresh user's check: it ended with "no prompt was sent" after saying the storage failure.
  interactiveTest(
    "a prompt storage refused (a database down): the last line says so, not 'no prompt was sent'",
    async ({ fixture }) => {
      const url = "postgres://someone:secret@127.0.0.1:1/turnloop";
      const terminal = await fixture.openReady([], { env: { TURNLOOP_DATABASE_URL: url } });
      terminal.type("Say hello");
      await terminal.waitFor(/the session is not saved yet/);
      await terminal.idle();
      terminal.key("C-d");
      const { code } = await terminal.exited();
      expect(code).toBe(0);
      const screen = await terminal.screen(200);
      expect(screen).toContain(
        "the session was not saved: storage refused the prompt (the error above)",
      );
      expect(screen).not.toContain("no prompt was sent");
      expect(fixture.server.requests).toHaveLength(0);
    },
  );

  interactiveTest(
    "the first prompt saves it whole, from session.start; sessions lists it with its age",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Hello there." });
      const terminal = await fixture.openReady();
      expect(await sessionFolders(fixture.home)).toEqual([]);
      terminal.type("Say hello");
      await terminal.waitFor(/Hello there\./);
      await terminal.idle();
      const [sessionId, ...others] = await sessionFolders(fixture.home);
      expect(others).toEqual([]);
      terminal.key("C-d");
      await terminal.exited();
      expect(await terminal.screen(200)).toContain(
        `resume it with: turnloop --resume ${sessionId}`,
      );
      expect(await fixture.eventTypes(sessionId ?? "")).toEqual(ANSWERED_SESSION);
      const listed = await runCli(["sessions"], {
        cwd: fixture.repository,
        env: fixture.environment(),
      });
      expect(listed.stdout).toBe(
        `${sessionId}  just now  1 turn  ${fixture.repository}\n    Say hello\n`,
      );
      const json = await runCli(["sessions", "--json"], {
        cwd: fixture.repository,
        env: fixture.environment(),
      });
      const [summary] = JSON.parse(json.stdout) as Array<{ lastActivity: string }>;
      expect(summary?.lastActivity).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    },
  );
});
