import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, pastSession } from "./interactive-support.js";

// The session-28 trial (#7): with the folder's newest session open in an interactive terminal,
// `turnloop -p "…" -c` in a second terminal said only that it was open elsewhere. --continue still
// refuses to write into it (and to put the prompt into an older conversation the user did not
// name: session/continue-refusal.ts), but names the ways on, the free session's --resume first.

describe.skipIf(tmuxMissing())(
  "--continue while the newest session is open in another terminal",
  () => {
    interactiveTest(
      "-p and the interactive session refuse, naming the other ways on; nothing is sent or written",
      async ({ fixture }) => {
        const older = await pastSession(fixture, "fix the build", "Fixed.");
        const newest = await pastSession(fixture, "hi", "Hello.");
        const holder = await fixture.openReady(["--resume", newest]);
        const before = await fixture.eventTypes(older);
        const requests = fixture.server.requests.length;
        const printed = await runCli(["-p", "quick question", "-c"], {
          cwd: fixture.repository,
          env: fixture.environment(),
        });
        const interactive = fixture.open(["-c"]);
        expect((await interactive.exited()).code).toBe(1);
        const shown = (text: string) =>
          text
            .replaceAll(newest, "NEWEST")
            .replace(/pid \d+/, "pid P")
            .replace(/since \S+\)/, "since T)")
            .replace(/last active \S+\)/, "last active T)");
        const refusal = (command: string) =>
          `turnloop: Session NEWEST is open in another process (pid P, running: ${command}, since T); ` +
          "close it there first. --continue takes the newest session of this folder, and that one " +
          "is open there: send the prompt there, run without --continue to start a new session, or " +
          `continue the newest one nobody has open with --resume ${older.slice(0, 8)} ` +
          '("fix the build", last active T).';
        expect([printed.code, printed.stdout, shown(printed.stderr)]).toEqual([
          1,
          "",
          `${refusal("turnloop --resume NEWEST")}\n`,
        ]);
        const screen = (await interactive.screen(500))
          .split("\n")
          .filter((line) => !line.startsWith("[stty "))
          .map(shown);
        expect(screen).toEqual([refusal("turnloop --resume NEWEST"), "[exit 1]"]);
        expect(fixture.server.requests.length).toBe(requests);
        expect(await fixture.eventTypes(older)).toEqual(before);
        expect((await holder.exitWithCtrlC()).code).toBe(0);
      },
    );
  },
);
