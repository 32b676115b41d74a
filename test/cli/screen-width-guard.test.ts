import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { ProcessTerminal, visibleWidth } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { GuardedTUI, SCREEN_ERRORS_FILE } from "../../src/cli/interactive/screen.js";
import { makeHome } from "../support/test-home.js";

// The screen's safety net (round 3, session 25, findings 1–3): a row wider than the terminal made
// pi-tui write the whole screen, conversation included, to ~/.pi/agent/pi-crash.log (mode 0644)
// and throw out of its render, ending the process. The views cut their rows by display width
// (test/cli/interactive-wide-text.test.ts); a row one of them still gets wrong is cut here and
// recorded in $TURNLOOP_HOME/screen-errors.log, without its text. The screen is never started:
// `render` is what pi-tui's draw calls on each frame.

let home: string;
beforeEach(async () => {
  home = await makeHome("turnloop-width-guard-");
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const SECRET_WIDE_ROW = `secret ${"日本語のテキスト".repeat(20)}`;

describe("the screen's safety net (screen.ts, GuardedTUI)", () => {
  test("a row wider than the terminal is cut to its width and recorded without its text, mode 0600", async () => {
    const tui = new GuardedTUI(new ProcessTerminal(), home);
    tui.addChild({
      render: () => ["fits", SECRET_WIDE_ROW, "👩‍👩‍👧‍👦".repeat(30)],
      invalidate: () => {},
    });
    for (const width of [40, 100]) {
      const rows = tui.render(width);
      expect(rows.map((row) => visibleWidth(row) <= width)).toEqual([true, true, true]);
      expect(rows[0]).toBe("fits");
      expect(rows[1]?.startsWith("secret 日本語")).toBe(true);
    }
    const record = await readFile(join(home, SCREEN_ERRORS_FILE), "utf8");
    expect(record.split("\n").map((line) => line.replace(/^\S+ /, ""))).toEqual([
      "row 1 was 327 columns wide at 40 columns; cut",
      "row 2 was 60 columns wide at 40 columns; cut",
      "row 1 was 327 columns wide at 100 columns; cut",
      "",
    ]);
    expect((await stat(join(home, SCREEN_ERRORS_FILE))).mode & 0o777).toBe(0o600);
  });

  test("a view that throws leaves the last frame and is recorded by its error's class only", async () => {
    const tui = new GuardedTUI(new ProcessTerminal(), home);
    let broken = false;
    tui.addChild({
      render: () => {
        if (broken) {
          throw new RangeError(SECRET_WIDE_ROW);
        }
        return ["a frame"];
      },
      invalidate: () => {},
    });
    expect(tui.render(100)).toEqual(["a frame"]);
    broken = true;
    expect(tui.render(100)).toEqual(["a frame"]);
    const record = await readFile(join(home, SCREEN_ERRORS_FILE), "utf8");
    expect(record).toMatch(/^\S+ a view failed to render at 100 columns: RangeError\n$/);
  });
});
