import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import {
  createFixture,
  INPUT_BOX,
  type InteractiveFixture,
  printedSessionId,
} from "./interactive-support.js";

let fixture: InteractiveFixture;

beforeEach(async () => {
  fixture = await createFixture();
});

afterEach(async () => {
  await fixture.close();
});

describe.skipIf(tmuxMissing())("turnloop (interactive): how the screen opens", () => {
  test("a banner names the folder, the model, the session id and /help", async () => {
    const terminal = fixture.open([], { columns: 120 });
    await terminal.waitFor(INPUT_BOX);
    const opened = await terminal.waitFor(/\/help lists the commands/);
    terminal.key("C-d");
    await terminal.exited();
    const sessionId = printedSessionId(terminal.screen(200));
    const banner = opened
      .split("\n")
      .slice(0, 2)
      .map((line) => line.trimEnd());
    expect(banner).toEqual([
      `turnloop in ${fixture.repository}`,
      `model openai-compatible:fake-model · session ${sessionId} · /help lists the commands`,
    ]);
  });

  test("a missing API key is reported before anything is drawn: the message, exit 64, no screen", async () => {
    const terminal = fixture.open([], {
      env: { TURNLOOP_MODEL: "anthropic:claude-sonnet-4-5", TURNLOOP_BASE_URL: undefined },
    });
    const { code } = await terminal.exited();
    const screen = terminal.screen(200);
    expect(code).toBe(64);
    expect(screen.split("\n").slice(0, 2)).toEqual([
      "turnloop: anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY (or TURNLOOP_API_KEY).",
      "[exit 64]",
    ]);
  });
});
