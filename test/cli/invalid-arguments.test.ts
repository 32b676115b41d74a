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
    expect(line?.replace(/ \([\d.]+ (?:ms|s|min)\)/, "")).toBe(
      `✗ bash touch ran invalid arguments: Invalid arguments for 'bash': ✖ Invalid input: expected number, received string → at timeout (received {"command":"touch ran","timeout":"abc"}).`,
    );
    expect(existsSync(join(repository, "ran"))).toBe(false);
    expect(result.stdout).toBe("Done.\n");
  });
});

describe("-p with a file tool given a blank path (trial 37 F4)", () => {
  test("each file tool says the path is empty, naming no folder", async ({ cli, model }) => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["create", { path: "", file_text: "x" }],
      ["edit", { path: " ", old_str: "a", new_str: "b" }],
      ["view", { path: "" }],
      ["glob", { pattern: "*", path: "" }],
      ["grep", { pattern: "x", path: "  " }],
    ];
    model.enqueue(
      {
        toolCalls: calls.map(([name, args], index) => ({
          id: `call_${index}`,
          name,
          arguments: JSON.stringify(args),
        })),
      },
      { text: "Done." },
    );
    const result = await cli(["-p", "make it", "--allow-all-tools"]);
    expect(result.code, result.stderr).toBe(0);
    const body = model.requests[1]?.body as { messages: Array<{ role: string; content: string }> };
    const results = body.messages
      .filter((message) => message.role === "tool")
      .map((message) => message.content);
    const file =
      "path is empty: give the path of a file (absolute, or relative to the working directory)";
    const folder =
      "path is empty: give a file or folder, or leave path out to search the working directory";
    expect(results).toEqual(
      calls.map(
        ([name, args]) =>
          `Invalid arguments for '${name}': ✖ ${name === "glob" || name === "grep" ? folder : file} → at path (received ${JSON.stringify(args)}).`,
      ),
    );
  });
});
