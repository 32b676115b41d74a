import { readFile } from "node:fs/promises";
import { describe, expect } from "vitest";
import { z } from "zod";
import { metadataPath } from "../../src/session/session-metadata.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { UNTIL_TOOL_START } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";

/** What the file store has committed: the event count of its metadata, written at each commit. */
async function committedEventCount(directory: string): Promise<number> {
  const { scan } = JSON.parse(await readFile(metadataPath(directory), "utf8")) as {
    scan: { eventCount: number };
  };
  return scan.eventCount;
}

describe("commit points", () => {
  test("a tool runs only once its tool.execution_start is committed; the answer waits for the rest", async ({
    openHarness,
  }) => {
    const seenByTool: Array<{ committed: number; stored: string[] }> = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports what the store has committed.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async (_input, context) => {
        const stored = (await harness?.persisted()) ?? [];
        seenByTool.push({
          committed: await committedEventCount(context.sessionDirectory),
          stored: stored.map((event) => event.type),
        });
        return { content: "probed", isError: false };
      },
    });
    const harness = await openHarness({ tools: [probe] });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "probe", arguments: "{}" }] },
      { text: "done" },
    );
    expect(await harness.prompt("probe the store")).toEqual({ stopReason: "end_turn" });

    expect(seenByTool).toEqual([
      {
        committed: 6,
        stored: [...UNTIL_TOOL_START],
      },
    ]);
    const stored = await harness.persisted();
    expect(await committedEventCount(harness.session.directory)).toBe(stored.length);
  });
});
