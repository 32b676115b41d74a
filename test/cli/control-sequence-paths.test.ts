import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { CliResult } from "../support/cli.js";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A file name is the model's or the repository's text: on every face it reaches the terminal
// with its control characters drawn as code points, so that no sequence acts and the name shown
// is the file's (README, "Text from elsewhere on your terminal"; trial 41 F1, F14; trial 47 F4:
// removing them named another file): a title (OSC 0, BEL-ended), the clipboard (OSC 52,
// ST-ended) and a colour (CSI).

const NAME = "\u001b]0;PWNED-TITLE\u0007\u001b]52;c;cHduZWQ=\u001b\\\u001b[31mred\u001b[0m.txt";
const PATH = `aw/${NAME}`;
/** {@link NAME} as drawn: each control character as its code point. */
const NAME_SHOWN =
  "⟨U+001B⟩]0;PWNED-TITLE⟨U+0007⟩⟨U+001B⟩]52;c;cHduZWQ=⟨U+001B⟩\\⟨U+001B⟩[31mred⟨U+001B⟩[0m.txt";

const calls = (...toolCalls: { name: string; arguments: object }[]) => ({
  toolCalls: toolCalls.map((call, index) => ({
    id: `call_${index + 1}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  })),
});

const EDIT_AND_CREATE = calls(
  { name: "edit", arguments: { path: PATH, old_str: "old", new_str: "new" } },
  { name: "create", arguments: { path: `aw/${NAME}.new`, file_text: "x\n" } },
);

async function writeOddFile(repository: string): Promise<void> {
  await mkdir(join(repository, "aw"));
  await writeFile(join(repository, PATH), "old\n");
}

/**
 * `turnloop` run with `args` in a repository holding the odd file, the model asking to edit it and
 * to create another beside it, then answering "done".
 */
async function editOddFile(
  { cli, model, repository }: Pick<CliFixtures, "cli" | "model" | "repository">,
  args: string[],
): Promise<CliResult> {
  await writeOddFile(repository);
  model.enqueue(EDIT_AND_CREATE, { text: "done" });
  return cli(args);
}

/** A tool line with its duration as `(N ms)`: durations are not asserted. */
const withoutDuration = (line: string | undefined) =>
  line?.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)");

/** Control characters left in `text`: none is the point. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test("-p's progress: the edit and create lines name the path, its sequences visible", async ({
  cli,
  model,
  repository,
}) => {
  const result = await editOddFile({ cli, model, repository }, ["-p", "go", "--allow-all-tools"]);
  expect(result.code).toBe(0);
  const lines = result.stderr.split("\n").map(withoutDuration);
  expect(lines.slice(0, 2)).toEqual([
    `✓ edit aw/${NAME_SHOWN} +1 −1 (N ms)`,
    `✓ create aw/${NAME_SHOWN}.new +1 (N ms)`,
  ]);
  expect(result.stderr).not.toMatch(CONTROL);
  const shown = await cli(["sessions", "show", printedSessionId(result.stderr)]);
  expect(shown.stdout).not.toMatch(CONTROL);
});

/** The rule an "always" answer records for the edit: the path, its `[`, `]` and `\` escaped for the glob. */
const RULE_SHOWN =
  "edit(aw/⟨U+001B⟩\\]0;PWNED-TITLE⟨U+0007⟩⟨U+001B⟩\\]52;c;cHduZWQ=⟨U+001B⟩\\\\⟨U+001B⟩\\[31mred⟨U+001B⟩\\[0m.txt)";

test("-p without a terminal: the rule to allow is one shell word holding the path's characters", async ({
  cli,
  model,
  repository,
}) => {
  const result = await editOddFile({ cli, model, repository }, ["-p", "go"]);
  const rule = String.raw`$'edit(aw/\x1b\\]0;PWNED-TITLE\x07\x1b\\]52;c;cHduZWQ=\x1b\\\\\x1b\\[31mred\x1b\\[0m.txt)'`;
  expect(withoutDuration(result.stderr.split("\n")[0])).toBe(
    `✗ edit ${`aw/${NAME_SHOWN}`.slice(0, 59)}… denied (N ms): Permission denied for 'edit': no terminal to ask on; ` +
      `rerun with --allow-tool ${rule} or --allow-all-tools`,
  );
  expect(result.stderr).not.toMatch(CONTROL);
});

/** The tool lines' start, each face's way: the path, its sequences visible. */
const TOOL_LINES = [`✓ edit aw/${NAME_SHOWN}`, `✓ create aw/${NAME_SHOWN}.new`];

describe.skipIf(tmuxMissing())("a path with control sequences on a terminal", () => {
  for (const face of [
    { name: "the interactive screen", args: [], env: {} },
    { name: "the plain-line face (TERM=dumb)", args: [], env: { TERM: "dumb" } },
    { name: "-p on a terminal", args: ["-p", "go"], env: {} },
  ]) {
    interactiveTest(
      `${face.name}: the question, its rule and the tool lines show them, the title unchanged`,
      async ({ fixture }) => {
        await writeOddFile(fixture.repository);
        fixture.server.enqueue(EDIT_AND_CREATE, { text: "done" });
        const size = { columns: 300, rows: 50, env: face.env };
        const full = face.args.length === 0 && face.env.TERM === undefined;
        const terminal = full ? await fixture.openReady([], size) : fixture.open(face.args, size);
        const title = terminal.title();
        if (face.args.length === 0) {
          await terminal.waitFor(/^(> *|.*Ctrl-D exit.*)$/m);
          terminal.type("go");
        }
        const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
        const asked = question.split("\n").map((line) => line.trim());
        expect(asked).toContain(
          `turnloop wants to edit aw/${NAME_SHOWN} (${fixture.repository}/aw/${NAME_SHOWN})`,
        );
        expect(question).toContain(`[a] yes, always for ${RULE_SHOWN} in this session`);
        terminal.type("a");
        await terminal.waitFor(/turnloop wants to create/);
        terminal.type("y");
        const screen = await terminal.waitFor(/^done/m);
        const lines = screen.split("\n").map((line) => line.trim());
        expect(lines).toContain(`always allowed in this session: ${RULE_SHOWN}`);
        expect(
          TOOL_LINES.map((start) => lines.some((line) => line.startsWith(`${start} `))),
        ).toEqual([true, true]);
        // Wherever the path's words are shown, their control characters are code points.
        expect(
          lines.filter((line) => line.includes("PWNED")).every((line) => line.includes("⟨U+001B⟩")),
        ).toBe(true);
        expect(terminal.title()).toBe(title);
      },
    );
  }
});

test("-p's progress: a tool name the model made up is drawn without its sequences", async ({
  cli,
  model,
}) => {
  const name = "\u001b]0;PWNED-TITLE\u0007bad\u001b[31mtool";
  model.enqueue({ toolCalls: [{ id: "call_1", name, arguments: "{}" }] }, { text: "done" });
  const result = await cli(["-p", "go", "--allow-all-tools"]);
  expect(withoutDuration(result.stderr.split("\n")[0])).toBe(
    "✗ badtool unknown tool (N ms): Tool 'badtool' does not exist. Available tools that can be " +
      "called are view, create, edit, grep, glob, bash, update_plan.",
  );
  expect(result.stderr).not.toMatch(CONTROL);
});
