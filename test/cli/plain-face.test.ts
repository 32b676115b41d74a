import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { CANCELLED_AT_QUESTION, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { printedSessionId, test } from "../support/fixtures.js";

// The interactive face as plain lines (stdin not a terminal): what it prints, whole.

describe("the plain-line face", () => {
  test("names the session once when it opens, new or resumed, and once when it ends", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({ text: "Hello there." });
    const first = await cli([], { stdin: "hi\n" });
    expect(first.code).toBe(0);
    const id = printedSessionId(first.stdout);
    const banner = [
      `turnloop in ${repository}`,
      `model openai-compatible:fake-model · session ${id} · /help lists the commands`,
    ];
    expect(first.stdout.split("\n")).toEqual([
      ...banner,
      "> Hello there.",
      "> ",
      `session ${id}`,
      "",
    ]);
    const resumed = await cli(["--resume", id], { stdin: "" });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout.split("\n")).toEqual([
      ...banner,
      "> hi",
      "Hello there.",
      "[stop: end_turn]",
      "",
      expect.stringMatching(/^— resumed \d{4}-\d\d-\d\dT[\d:.]+Z$/),
      "> ",
      `session ${id}`,
      "",
    ]);
  });
});

describe("a prompt that attached an @file", () => {
  // Round 3, session 32: the interactive face named the `@file`s under the prompt, live and
  // reopened, but the plain face's replay and `sessions show` did not; each reads the prompt's
  // files from the session model now.
  test("is followed by its `attached` line live, in the replay of a resume and in `sessions show`", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "notes.md"), "remember the milk\n");
    model.enqueue({ text: "Summarized." });
    const first = await cli([], { stdin: "summarize @notes.md now\n" });
    expect(first.code).toBe(0);
    const id = printedSessionId(first.stdout);
    expect(first.stdout.split("\n").slice(2)).toEqual([
      "> attached notes.md",
      "Summarized.",
      "> ",
      `session ${id}`,
      "",
    ]);
    const resumed = await cli(["--resume", id], { stdin: "" });
    expect(resumed.stdout.split("\n").slice(2, -4)).toEqual([
      "> summarize @notes.md now",
      "attached notes.md",
      "Summarized.",
      "[stop: end_turn]",
      "",
    ]);
    const shown = await cli(["sessions", "show", id]);
    expect(shown.stdout.split("\n").slice(1)).toEqual([
      "",
      "> summarize @notes.md now",
      "attached notes.md",
      "Summarized.",
      "[stop: end_turn]",
      "",
    ]);
  });
});

describe("a prompt the turn limit stops", () => {
  test("says the limit and how to go on here (another message), not -p's --continue", async ({
    cli,
    model,
  }) => {
    const call = { id: "call_1", name: "glob", arguments: '{"pattern":"*.none"}' };
    model.enqueue({ toolCalls: [call] });
    const result = await cli(["--max-turns", "1"], { stdin: "look\n" });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.slice(2, -3)).toEqual([
      expect.stringMatching(/^> ✓ glob \*\.none \([\d.]+ (?:ms|s|min)\)$/),
      "stopped: reached the turn limit (1); send a message to go on",
    ]);
    expect(result.stdout).not.toContain("--continue");
  });
});

describe("end of input at a permission question", () => {
  test("cancels the prompt (not a no) and ends the session as at the prompt: the log shows the cancel", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"touch made"}' }],
    });
    const result = await cli([], { stdin: "make it\n", env: { TURNLOOP_MAX_RETRIES: "0" } });
    expect(result.code).toBe(0);
    const id = printedSessionId(result.stdout);
    expect(result.stdout.split("\n").slice(2)).toEqual([
      "> turnloop wants to run touch made",
      "    $ touch made",
      "[y] yes, once   [a] yes, always for bash(touch made) in this session   [p] yes, always for bash(touch made *) in this session   [n] no   [t] no, and tell the model why > ",
      expect.stringMatching(
        /^⊘ bash touch made interrupted \([\d.]+ (?:ms|s|min)\): Not run: the prompt was cancelled before the tool call started\.$/,
      ),
      "cancelled",
      // The face ends as on end of input at the prompt.
      "> ",
      `session ${id}`,
      "",
    ]);
    const events = await loggedEvents(id);
    expect(events.map((event) => event.type)).toEqual([
      ...UNTIL_TOOL_START.slice(0, -1),
      ...CANCELLED_AT_QUESTION,
    ]);
    expect(events.find((event) => event.type === "permission.completed")?.data).toMatchObject({
      decision: "cancelled",
    });
    // One model request: the question was not answered, so the model was not asked again.
    expect(model.requests).toHaveLength(1);
  });
});

describe("an answer that is none of the offered ones", () => {
  // A fresh user's trial: `maybe` was taken as "the user said no", and with
  // `printf 'SAY one\nTOOL …\nSAY two\n' | turnloop` the line meant as the next prompt was eaten.
  test("is asked again, naming the keys; the next real answer counts", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo x"}' }] },
      { text: "Ran it." },
    );
    const result = await cli([], { stdin: "run it\nmaybe\n\ny\n" });
    expect(result.code).toBe(0);
    const id = printedSessionId(result.stdout);
    const lines = result.stdout.split("\n");
    const asked = lines.findIndex((line) => line.startsWith("[y] yes, once"));
    expect(lines.slice(asked, asked + 7)).toEqual([
      "[y] yes, once   [a] yes, always for bash(echo x) in this session   [p] yes, always for bash(echo x *) in this session   [n] no   [t] no, and tell the model why > ",
      '"maybe" is not an answer; type y, a, p, n or t > ',
      // The command's output under a line naming it (plain-face-live-output.test.ts).
      '"" is not an answer; type y, a, p, n or t > ● bash echo x',
      "    x",
      expect.stringMatching(/^✓ bash echo x \([\d.]+ (?:ms|s|min)\)$/),
      "Ran it.",
      "> ",
    ]);
    const events = await loggedEvents(id);
    expect(
      events.filter((event) => event.type === "permission.completed").map((event) => event.data),
    ).toMatchObject([{ decision: "allowed", scope: "once" }]);
  });
});
