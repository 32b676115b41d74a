import { createHook } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { z } from "zod";
import { FileSessionStore } from "../../src/session/file-store.js";
import { metadataPath } from "../../src/session/session-metadata.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { builtinTools, viewTool } from "../../src/tools/index.js";
import { TOOL_TURN, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";

/** The event count of the file store's listing metadata (stored at the end of a prompt, see file-store.ts). */
async function metadataEventCount(directory: string): Promise<number> {
  const { scan } = JSON.parse(await readFile(metadataPath(directory), "utf8")) as {
    scan: { eventCount: number };
  };
  return scan.eventCount;
}

/**
 * Runs `work` and returns, for each `fdatasync` of `logPath`'s writer started meanwhile, the type
 * of the last event in the file at that moment: what each sync makes durable. A sync is told by
 * the stack of the thread-pool request it starts (Node's `fs.fdatasync` called from event-log.ts).
 */
async function syncedUpTo(logPath: string, work: () => Promise<unknown>): Promise<string[]> {
  const synced: string[] = [];
  const hook = createHook({
    init(_id, type) {
      const stack = type === "FSREQCALLBACK" ? callers() : "";
      if (/fdatasync/.test(stack) && /event-log\.ts/.test(stack)) {
        const lines = readFileSync(logPath, "utf8").trimEnd().split("\n");
        synced.push((JSON.parse(lines.at(-1) ?? "{}") as { type: string }).type);
      }
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return synced;
}

/** The function and file names of the caller's stack (as V8 has them: no source maps). */
function callers(): string {
  const given = Error.prepareStackTrace;
  Error.prepareStackTrace = (_error, sites) =>
    sites.map((site) => `${site.getFunctionName()} ${site.getFileName()}`).join("\n");
  try {
    return String(new Error().stack);
  } finally {
    Error.prepareStackTrace = given;
  }
}

describe("commit points", () => {
  test("a prompt syncs its log where README says, no more: a model request waits for its assistant.turn_start to be written, not synced", async ({
    openHarness,
  }) => {
    const probe = defineTool({
      name: "probe",
      description: "Answers at once.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async () => ({ content: "probed", isError: false }),
    });
    const harness = await openHarness({ tools: [probe] });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "probe", arguments: "{}" }] },
      { toolCalls: [{ id: "call_2", name: "probe", arguments: "{}" }] },
      { text: "done" },
    );
    const synced = await syncedUpTo(harness.session.transcriptPath, async () => {
      expect(await harness.prompt("probe twice")).toEqual({ stopReason: "end_turn" });
    });

    expect(harness.server.requests).toHaveLength(3);
    // The prompt before the model is asked, each tool call before it runs, each turn's end
    // (the last one's covers the answer); never an assistant.turn_start on its own.
    expect(synced).toEqual([
      "user.message",
      "tool.execution_start",
      "assistant.turn_end",
      "tool.execution_start",
      "assistant.turn_end",
      "assistant.turn_end",
    ]);
  });

  test("a built-in tool that changes nothing runs without a sync before it: its call is synced at the turn's end, a tool that may change something still waits for one", async ({
    openHarness,
  }) => {
    // Defined next to each tool (define-tool.ts `changesNothing`): the read-only built-ins.
    expect(
      builtinTools()
        .filter((tool) => tool.changesNothing === true)
        .map((tool) => tool.name),
    ).toEqual(["view", "grep", "glob", "update_plan"]);
    const probe = defineTool({
      name: "probe",
      description: "Answers at once.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async () => ({ content: "probed", isError: false }),
    });
    const harness = await openHarness({ tools: [viewTool, probe] });
    const path = join(harness.cwd, "notes.txt");
    await writeFile(path, "one line\n");
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "view", arguments: JSON.stringify({ path }) }] },
      { toolCalls: [{ id: "call_2", name: "probe", arguments: "{}" }] },
      { text: "done" },
    );
    const synced = await syncedUpTo(harness.session.transcriptPath, async () => {
      expect(await harness.prompt("view, then probe")).toEqual({ stopReason: "end_turn" });
    });

    expect(harness.server.requests).toHaveLength(3);
    const viewed = (await harness.persisted()).find(
      (event) => event.type === "tool.execution_complete",
    );
    expect(viewed?.data).toMatchObject({ toolCallId: "call_1", success: true });
    expect(synced).toEqual([
      "user.message",
      "assistant.turn_end",
      "tool.execution_start",
      "assistant.turn_end",
      "assistant.turn_end",
    ]);
  });

  test("a tool runs only once its tool.execution_start is committed; the answer waits for the rest", async ({
    openHarness,
  }) => {
    const seenByTool: Array<{ listed: unknown; stored: string[]; metadataEvents: number }> = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports what the store has committed.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async () => {
        const stored = (await harness?.persisted()) ?? [];
        const metadataEvents = await metadataEventCount(harness?.session.directory ?? "");
        // A listing while the tool runs (metadata lagging mid-prompt) counts every event.
        const listed = await new FileSessionStore(harness?.home ?? "").list();
        seenByTool.push({
          listed: listed.map(({ eventCount, turns }) => ({ eventCount, turns })),
          stored: stored.map((event) => event.type),
          metadataEvents,
        });
        return { content: "probed", isError: false };
      },
    });
    const harness = await openHarness({ tools: [probe] });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "probe", arguments: "{}" }] },
      { toolCalls: [{ id: "call_2", name: "probe", arguments: "{}" }] },
      { text: "done" },
    );
    expect(await harness.prompt("probe the store")).toEqual({ stopReason: "end_turn" });

    const secondTurn = [...UNTIL_TOOL_START, ...TOOL_TURN.slice(-2), ...UNTIL_TOOL_START.slice(2)];
    expect(seenByTool).toEqual([
      {
        listed: [{ eventCount: 6, turns: 1 }],
        stored: [...UNTIL_TOOL_START],
        // Stored when the session was created (its session.start); the prompt's checkpoints
        // (a tool's start, a turn's end) leave it lagging (file-store.ts, LISTING_TAIL_BYTES).
        metadataEvents: 1,
      },
      {
        listed: [{ eventCount: 12, turns: 2 }],
        stored: secondTurn,
        // What the listing in the first tool scanned and stored; the writer's checkpoints since
        // left it as it was.
        metadataEvents: 6,
      },
    ]);
    // After the prompt the metadata describes every event: the next listing reads no log.
    const stored = await harness.persisted();
    expect(await metadataEventCount(harness.session.directory)).toBe(stored.length);
  });

  test("a session's first prompt leaves the stored metadata as it was until the prompt ends; a listing meanwhile shows the prompt", async ({
    openHarness,
  }) => {
    const seenByTool: Array<{ listed: unknown; metadataEvents: number }> = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports what the listing metadata holds.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async () => {
        const metadataEvents = await metadataEventCount(harness?.session.directory ?? "");
        const listed = await new FileSessionStore(harness?.home ?? "").list();
        seenByTool.push({
          listed: listed.map(({ eventCount, turns, firstPrompt }) => ({
            eventCount,
            turns,
            firstPrompt,
          })),
          metadataEvents,
        });
        return { content: "probed", isError: false };
      },
    });
    const harness = await openHarness({ tools: [probe] });
    // Stored when the session was created, as by the SDK server's session.create.
    expect(await metadataEventCount(harness.session.directory)).toBe(1);
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "probe", arguments: "{}" }] },
      { toolCalls: [{ id: "call_2", name: "probe", arguments: "{}" }] },
      { text: "done" },
    );
    expect(await harness.prompt("probe the store")).toEqual({ stopReason: "end_turn" });

    expect(seenByTool).toEqual([
      {
        listed: [{ eventCount: 6, turns: 1, firstPrompt: "probe the store" }],
        // The first tool's checkpoint did not rewrite it for the new title: the listing scans
        // the log past it (file-store.ts, LISTING_TAIL_BYTES).
        metadataEvents: 1,
      },
      {
        listed: [{ eventCount: 12, turns: 2, firstPrompt: "probe the store" }],
        // What the first tool's listing scanned and stored.
        metadataEvents: 6,
      },
    ]);
    const stored = await harness.persisted();
    expect(await metadataEventCount(harness.session.directory)).toBe(stored.length);
  });
});
