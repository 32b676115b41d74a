import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A carriage return never makes text disappear from the terminal (README, "Text from elsewhere
// on your terminal"; trial 47 F2: `rm -rf ~/important\rls -la` in a reply was drawn as `ls -la`).
// A reply or a file is not a progress bar: its `\r` is drawn as its code point. A command's output
// is drawn over as a terminal would: what a shorter line does not cover stays visible.

const REPLY = "cr:rm -rf ~/important\rls -la:end\r\nnext line";
const REPLY_SHOWN = ["cr:rm -rf ~/important⟨U+000D⟩ls -la:end", "next line"];
/** A file whose second line hides its start behind a `\r`. */
const FILE = "first\nrm -rf ~/important\rls -la\n";
/** Output drawn over as a terminal does: `ls -la` covers `rm -rf`, the rest stays; 100% covers. */
const OUTPUT_COMMAND = String.raw`printf 'rm -rf ~/important\rls -la\n10%%\r55%%\r100%%\n'`;

const call = (name: string, callArguments: object) => ({
  toolCalls: [{ id: `call_${name}`, name, arguments: JSON.stringify(callArguments) }],
});

describe.skipIf(tmuxMissing())("a carriage return on the terminal", () => {
  interactiveTest(
    "the interactive screen: a reply's \\r shown, a command's output drawn over as a terminal does",
    async ({ fixture }) => {
      fixture.server.enqueue(call("bash", { command: OUTPUT_COMMAND }), { text: REPLY });
      const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 120, rows: 40 });
      terminal.type("go");
      const screen = await terminal.waitFor(/^next line/m);
      const lines = screen
        .split("\n")
        .map((line) => line.trimEnd().replace(/ +[\d.]+ (?:ms|s)$/, ""));
      const from = lines.findIndex((line) => line.startsWith("✓ bash"));
      expect(lines.slice(from, lines.indexOf("next line") + 1)).toEqual([
        `✓ bash ${OUTPUT_COMMAND}`,
        "  ls -la ~/important",
        "  100%",
        "",
        ...REPLY_SHOWN,
      ]);
    },
  );

  interactiveTest("-p on a terminal: the answer's \\r shown", async ({ fixture }) => {
    fixture.server.enqueue({ text: REPLY });
    const terminal = fixture.open(["-p", "go"], { columns: 120 });
    const screen = await terminal.waitFor(/\[exit 0\]/);
    const lines = screen.split("\n").map((line) => line.trimEnd());
    const from = lines.indexOf(REPLY_SHOWN[0] ?? "");
    expect(lines.slice(from, from + 2)).toEqual(REPLY_SHOWN);
  });
});

test("sessions show: a file's and the reply's \\r shown; the model read the command's output as drawn over", async ({
  cli,
  model,
  repository,
}) => {
  await writeFile(join(repository, "odd.txt"), FILE);
  model.enqueue(call("view", { path: "odd.txt" }), call("bash", { command: OUTPUT_COMMAND }), {
    text: REPLY,
  });
  const result = await cli(["-p", "go", "--allow-all-tools"]);
  expect(result.stdout).toBe(`${REPLY}\n`);
  const body = model.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
  // The model gets the file as it is, and the command's output as a terminal leaves it.
  expect(
    body.messages.filter((message) => message.role === "tool").map((message) => message.content),
  ).toEqual([
    "1. first\n2. rm -rf ~/important\rls -la",
    "ls -la ~/important\n100%\n<exited with exit code 0>",
  ]);
  const shown = await cli(["sessions", "show", printedSessionId(result.stderr)]);
  const lines = shown.stdout.split("\n").map((line) => line.replace(/ \([\d.]+ (?:ms|s)\)$/, ""));
  expect(lines.slice(1)).toEqual([
    "",
    "> go",
    '→ view(path: "odd.txt") ✓',
    "    1. first",
    "    2. rm -rf ~/important⟨U+000D⟩ls -la",
    String.raw`→ bash(command: "printf 'rm -rf ~/important\\rls -la\\n10%%\\r55%%…) ✓`,
    "    ls -la ~/important",
    "    100%",
    ...REPLY_SHOWN,
    "[stop: end_turn]",
    "",
  ]);
});
