import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { updatePlanCall } from "../support/plan.js";
import { interactiveTest, shownRows } from "./interactive-support.js";

// Trial 40 F1: the interactive screen kept what it drew of one session (its calls by id, its
// plan) across `/new` and `/resume`, so a call of the next session whose id was drawn before was
// not drawn at all (a server that numbers its calls per conversation gives the same ids again),
// nor a plan equal to the one shown before, nor a reopened session's calls; the plain-line face
// dropped the `● bash …` heading of a call id headed before. Each session is now drawn afresh.

/** A reply with one `bash` call of id `call_1` (the same id in every session) and a plan. */
const commandAndPlan = (command: string) => ({
  toolCalls: [
    { id: "call_1", name: "bash", arguments: JSON.stringify({ command }) },
    updatePlanCall("call_2", ["in_progress", "pending", "pending"]),
  ],
});

/** The rows of `screen` from the last row that is `marker` on, durations as `N.Ns`. */
function rowsFrom(screen: string[], marker: string): string[] {
  const start = screen.lastIndexOf(marker);
  return screen.slice(start).map((row) => row.replace(/ {2}[\d.]+ (?:ms|s|min)$/, "  N.Ns"));
}

/** The session's rows as drawn under its prompt `prompt`, whose command printed `printed`. */
const sessionRows = (prompt: string, printed: string, answer: string) => [
  `› ${prompt}`,
  `✓ bash echo ${printed}  N.Ns`,
  `  ${printed}`,
  "plan",
  "◐ Find the bug",
  "☐ Fix it",
  "☐ Run the tests",
  answer,
];

describe.skipIf(tmuxMissing())("the interactive screen after /new and /resume", () => {
  interactiveTest(
    "a call whose id was drawn in the session before, the same plan, and a reopened session's calls are all drawn",
    async ({ fixture }) => {
      fixture.server.enqueue(
        commandAndPlan("echo first"),
        { text: "Ran one." },
        commandAndPlan("echo second"),
        { text: "Ran two." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"], {
        columns: 120,
        rows: 60,
      });
      terminal.type("run one");
      await terminal.waitFor(/Ran one\./);
      const firstScreen = await terminal.idle();
      const first = shownRows(firstScreen, fixture);
      expect(rowsFrom(first, "› run one").slice(0, 8)).toEqual(
        sessionRows("run one", "first", "Ran one."),
      );
      terminal.type("/new");
      await terminal.waitFor(/new session [0-9a-f-]{36}/);
      terminal.type("run two");
      await terminal.waitFor(/Ran two\./);
      const second = shownRows(await terminal.idle(), fixture);
      expect(rowsFrom(second, "› run two").slice(0, 8)).toEqual(
        sessionRows("run two", "second", "Ran two."),
      );
      // The first session, reopened in the same process: its history with its call and plan.
      const firstId = /session\s+([0-9a-f]{8})/.exec(firstScreen)?.[1];
      terminal.type(`/resume ${firstId}`);
      await terminal.waitFor(/› run one/);
      const reopened = shownRows(await terminal.idle(), fixture);
      expect(rowsFrom(reopened, "› run one").slice(0, 8)).toEqual(
        sessionRows("run one", "first", "Ran one."),
      );
      expect(reopened.join("\n")).not.toContain("run two");
    },
  );
});

describe("the plain-line face after /new", () => {
  test("a command whose call id was headed in the session before gets its heading again", async ({
    cli,
    model,
  }) => {
    const bash = (command: string) => ({
      toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    model.enqueue(bash("echo one"), { text: "Ran one." }, bash("echo two"), { text: "Ran two." });
    const result = await cli(["--allow-all-tools"], { stdin: "run one\n/new\nrun two\n" });
    expect(result.code, result.stderr).toBe(0);
    const id = printedSessionId(result.stdout);
    const lines = result.stdout
      .split("\n")
      .map((line) =>
        line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)").replace(/[0-9a-f-]{36}/, "<id>"),
      );
    const start = lines.findIndex((line) => line.includes("● bash echo one"));
    expect(lines.slice(start), result.stdout).toEqual([
      "> ● bash echo one",
      "    one",
      "✓ bash echo one (N ms)",
      "Ran one.",
      expect.stringMatching(/^> turnloop in /),
      "model openai-compatible:fake-model · session <id> · /help lists the commands",
      "",
      "/new",
      "  new session <id>",
      "> ● bash echo two",
      "    two",
      "✓ bash echo two (N ms)",
      "Ran two.",
      "> ",
      `session ${id.replace(/[0-9a-f-]{36}/, "<id>")}`,
      "",
    ]);
  });
});
