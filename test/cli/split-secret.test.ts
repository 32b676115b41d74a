import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { keyCutEverywhere, SPLIT_KEY, SPLIT_KEY_VARIABLE } from "../support/split-secret.js";
import { interactiveTest } from "./interactive-support.js";

/**
 * An API key of turnloop's environment that the model's stream cuts across two deltas, at every
 * place (test/support/split-secret.ts), reaches the terminal only whole and redacted: in `-p
 * --verbose`'s streamed text, in `--output-format stream-json`'s delta lines, and on the interactive screen
 * while the answer streams.
 */

const answer = keyCutEverywhere("answer");
const reasoning = keyCutEverywhere("thought");
const withKey = { env: { [SPLIT_KEY_VARIABLE]: SPLIT_KEY } };

test("-p --verbose streams the answer with the key only whole, redacted", async ({
  cli,
  model,
}) => {
  model.enqueue({ reasoning: reasoning.pieces, text: answer.pieces });
  // `--verbose` writes each delta as it comes (without it, the completed answer is printed).
  const result = await cli(["-p", "Which key do you use?", "--verbose"], withKey);
  expect(result.stdout).toBe(`${answer.text}\n`);
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain(SPLIT_KEY.slice(0, 6));
});

test("-p --output-format stream-json: every delta line shows the key only whole, redacted", async ({
  cli,
  model,
}) => {
  model.enqueue({ reasoning: reasoning.pieces, text: answer.pieces });
  const result = await cli(
    ["-p", "Which key do you use?", "--output-format", "stream-json"],
    withKey,
  );
  expect(result.code).toBe(0);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; data?: { deltaContent?: string } });
  const deltas = (type: string) =>
    lines.filter((line) => line.type === type).map((line) => line.data?.deltaContent);
  expect(deltas("assistant.reasoning_delta")).toEqual(reasoning.shown);
  expect(deltas("assistant.message_delta")).toEqual(answer.shown);
  expect(result.stdout).not.toContain(SPLIT_KEY.slice(0, 6));
});

describe.skipIf(tmuxMissing())("turnloop (interactive)", () => {
  interactiveTest(
    "the screen never shows the part of a key a delta ends with, then shows it whole, redacted",
    async ({ fixture }) => {
      const rest = gate();
      // The answer stops after its 14th delta, `…\nanswer 14: sk-live-012345`, until the test
      // has seen the screen (the first event carries no text).
      fixture.server.enqueue({
        text: answer.pieces,
        pause: { afterEvents: 15, until: rest.opened },
      });
      const terminal = await fixture.openReady([], { ...withKey, rows: 50 });
      terminal.type("Which key do you use?");
      const streaming = await terminal.waitFor(/answer 14:/);
      const shown = screenLines(streaming);
      const start = shown.findIndex((line) => line.startsWith("answer 1: "));
      expect(shown.slice(start, start + 14)).toEqual([
        ...answer.text.split("\n").slice(0, 13),
        "answer 14:",
      ]);
      rest.open();
      const done = await terminal.waitFor(/end of answer\./);
      const lines = screenLines(done);
      const first = lines.findIndex((line) => line.startsWith("answer 1: "));
      expect(lines.slice(first, first + 28)).toEqual(answer.text.split("\n"));
      expect(`${streaming}\n${done}`).not.toContain(SPLIT_KEY.slice(0, 6));
    },
  );
});
