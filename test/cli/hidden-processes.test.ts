import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { hiddenPlaceRefusal } from "../support/one-command.js";

// Trial 34, HIGH 3: with --allow-all-tools, `grep {pattern: "OPENAI_API_KEY=sk-openai-C", path:
// "/proc/self/environ", output_mode: "count"}` answered 1, and the `-X` guess "No matches found":
// the key, one character at a time. A process's folder under /proc is now a hidden place for the
// file tools (src/permissions/hidden-places.ts `processFolder`), as the sandbox's own pid
// namespace hides the host's processes from commands. The built CLI under -p, the fake model
// asking for the calls in one reply; the tool results it read are asserted whole.

describe("a process's folder under /proc", () => {
  test("view, grep and glob of turnloop's own and another process's are refused; /proc/cpuinfo is not", async ({
    cli,
    model,
  }) => {
    const calls: Array<[string, Record<string, string>]> = [
      [
        "grep",
        { pattern: "TURNLOOP_TRIAL_TOKEN=t", path: "/proc/self/environ", output_mode: "count" },
      ],
      ["view", { path: "/proc/self/environ" }],
      ["view", { path: "/proc/1/cmdline" }],
      ["glob", { pattern: "*", path: "/proc/thread-self" }],
      ["grep", { pattern: "^processor", path: "/proc/cpuinfo", output_mode: "count" }],
    ];
    const toolCalls = calls.map(([name, args], index) => ({
      id: `call_${index}`,
      name,
      arguments: JSON.stringify(args),
    }));
    model.enqueue({ toolCalls }, { text: "Done." });
    const result = await cli(["-p", "look", "--allow-all-tools"], {
      env: { TURNLOOP_TRIAL_TOKEN: "tok-ZZZZ" },
    });
    expect(result.code).toBe(0);
    const messages = chatMessages(model, -1);
    const results = toolCalls.map(
      ({ id }) => messages.find((message) => message.tool_call_id === id)?.content,
    );
    expect(results.slice(0, 4)).toEqual([
      hiddenPlaceRefusal("grep", "/proc/self"),
      hiddenPlaceRefusal("view", "/proc/self"),
      hiddenPlaceRefusal("view", "/proc/1"),
      hiddenPlaceRefusal("glob", "/proc/thread-self"),
    ]);
    expect(String(results[4])).toMatch(/^\/proc\/cpuinfo:[1-9]\d*$/);
  });
});
