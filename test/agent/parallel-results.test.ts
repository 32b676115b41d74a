import { describe, expect } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import { waitForEvent } from "../llm/helpers.js";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { types } from "../support/harness.js";
import { callingTools } from "../support/replies.js";
import { readFileTool } from "../support/test-tools.js";

/**
 * A read-only tool that echoes `text`; a call with `wait: true` answers only once `release` settles,
 * so parallel calls finish out of order (and sequential ones would never finish).
 */
function heldEcho(release: Promise<unknown>) {
  return defineTool({
    name: "slow_echo",
    description: "Echoes, the held calls once released.",
    input: z.object({ text: z.string(), wait: z.boolean() }),
    kind: "read",
    mutates: false,
    execute: async ({ text, wait }) => {
      if (wait) {
        await release;
      }
      return { content: text, isError: false };
    },
  });
}

describe("case 11: parallel tool results", () => {
  test.for(["openai-chat", "anthropic", "openai-responses"] as const)(
    "read-only calls run concurrently; results go back complete and in call order (%s)",
    async (wire, { openHarness }) => {
      const release = gate();
      const harness = await openHarness({ wire, tools: [heldEcho(release.opened), readFileTool] });
      // The slow call answers once the two others have completed.
      const completedOf = (id: string) =>
        waitForEvent(
          harness,
          (event) => event.type === "tool.execution_complete" && event.data.toolCallId === id,
        );
      void Promise.all([completedOf("c2"), completedOf("c3")]).then(release.open);
      harness.server.enqueue(
        callingTools(
          ["c1", "slow_echo", { text: "slow", wait: true }],
          ["c2", "slow_echo", { text: "fast", wait: false }],
          ["c3", "read_file", { path: "missing.txt" }],
        ),
        { text: "summary" },
      );
      expect(await harness.prompt("run the three things")).toEqual({ stopReason: "end_turn" });
      // Completion order on the event stream: the slow call last (they ran concurrently).
      const completed = harness.events.flatMap((event) =>
        event.type === "tool.execution_complete"
          ? [[event.data.toolCallId, event.data.success]]
          : [],
      );
      expect(completed.at(-1)).toEqual(["c1", true]);
      expect([...completed].sort()).toEqual([
        ["c1", true],
        ["c2", true],
        ["c3", false],
      ]);
      expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
      // The second request pairs every call with its result, in call order.
      const body = JSON.stringify(harness.server.requests[1]?.body);
      const positions = ["slow", "fast", "No such file: missing.txt"].map((text) =>
        body.indexOf(text),
      );
      expect(positions.every((position) => position > 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);

      // After a restart the rebuilt history is the same: nothing lost, nothing duplicated.
      await harness.reopen();
      harness.server.enqueue({ text: "again" });
      expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
      expect(harness.server.requests[2]?.status).toBe(200);
      const persisted = types(await harness.persisted());
      expect(persisted.filter((type) => type === "tool.execution_complete")).toHaveLength(3);
    },
  );
});
