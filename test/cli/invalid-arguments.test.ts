/**
 * A tool call whose arguments do not fit the tool's schema fails without running; the terminal's
 * line for it names the field that is wrong (the model gets the same words), where it showed only
 * "✖ Invalid input: expected number, received string" (a fresh user's trial, round 3 session 20).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

describe("-p with a tool call of invalid arguments", () => {
  test("the failed call's line names the field", async ({ cli, model, repository }) => {
    model.enqueue(
      {
        toolCalls: [
          {
            id: "call_1",
            name: "bash",
            arguments: JSON.stringify({ command: "touch ran", timeout: "abc" }),
          },
        ],
      },
      { text: "Done." },
    );
    const result = await cli(["-p", "run it", "--allow-all-tools"]);
    expect(result.code, result.stderr).toBe(0);
    const line = result.stderr.split("\n").find((each) => each.startsWith("✗ bash"));
    expect(line?.replace(/ \(\d+ ms\)/, "")).toBe(
      `✗ bash touch ran invalid arguments: Invalid arguments for 'bash': ✖ Invalid input: expected number, received string → at timeout (received {"command":"touch ran","timeout":"abc"}).`,
    );
    expect(existsSync(join(repository, "ran"))).toBe(false);
    expect(result.stdout).toBe("Done.\n");
  });
});
