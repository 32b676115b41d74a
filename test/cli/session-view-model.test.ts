import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { buildSessionView } from "../../src/cli/session-view/fold.js";
import type { SessionView } from "../../src/cli/session-view/view-model.js";
import { readEventLog } from "../../src/session/event-log.js";

/** A log as the view reads it through the store: each event with its line. */
async function readNumberedLog(path: string) {
  const log = await readEventLog(path);
  const events = log.events.map((event, index) => ({ event, line: log.seqs[index] ?? 0 }));
  return { events, repaired: log.repaired };
}

const golden = (name: string) =>
  fileURLToPath(new URL(`./session-view-golden/${name}`, import.meta.url));

async function viewOf(name: string): Promise<SessionView> {
  const log = await readNumberedLog(golden(name));
  return buildSessionView(log.events, log.repaired);
}

/** What a reader sees of each turn: times, status, tools and marks. */
function turnShapes(view: SessionView) {
  return view.turns.map((turn) => ({
    index: turn.index,
    prompt: turn.prompt,
    purpose: turn.purpose,
    status: turn.status,
    times: [turn.requestAt, turn.firstTokenAt, turn.lastTokenAt, turn.endAt, turn.spanEnd],
    cost: turn.cost,
    tools: turn.tools.map((tool) => ({
      name: tool.name,
      status: tool.status,
      times: [tool.start, tool.end],
      permission: tool.permission,
    })),
    marks: turn.marks.map((mark) => `${mark.kind}@${mark.at}`),
  }));
}

describe("the session view of a log in the newer order (turn_end after tools, turn_start at the request)", () => {
  test("turns, tools, permission waits, the compaction turn and the open last turn", async () => {
    const view = await viewOf("new-order.jsonl");
    const none = undefined;
    expect(turnShapes(view)).toEqual([
      {
        index: 1,
        prompt: 1,
        purpose: none,
        status: "failed",
        times: [20, none, none, 520, 520],
        cost: none,
        tools: [],
        marks: ["retry@521"],
      },
      {
        index: 2,
        prompt: 1,
        purpose: none,
        status: "completed",
        times: [1521, none, 3521, 9530, 9530],
        cost: 0.021,
        tools: [
          {
            name: "bash",
            status: "success",
            times: [3523, 9524],
            permission: {
              requested: 3524,
              completed: 6524,
              kind: "execute",
              title: "Run npm test",
              decision: "allowed",
              scope: "once",
            },
          },
        ],
        marks: ["permission@3524", "permission@6524"],
      },
      {
        index: 3,
        prompt: 1,
        purpose: "compaction",
        status: "completed",
        times: [9541, none, 14541, 14543, 14543],
        cost: 0.46,
        tools: [],
        marks: ["compaction@9540", "compaction@14544"],
      },
      {
        index: 4,
        prompt: 1,
        purpose: none,
        status: "completed",
        times: [14550, none, 16550, 20560, 20560],
        cost: 0.04,
        tools: [
          {
            name: "edit",
            status: "denied",
            times: [20553, 20553],
            permission: {
              requested: 16552,
              completed: 20552,
              kind: "edit",
              title: "Edit src/cli.ts",
              decision: "denied",
              scope: "once",
              reason: "not that file",
            },
          },
        ],
        marks: ["permission@16552", "permission@20552"],
      },
      {
        index: 5,
        prompt: 1,
        purpose: none,
        status: "completed",
        times: [20570, none, 21570, 21572, 21572],
        cost: 0.01,
        tools: [],
        marks: [],
      },
      {
        index: 6,
        prompt: 2,
        purpose: none,
        status: "cancelled",
        times: [30010, none, none, 31010, 31010],
        cost: none,
        tools: [],
        marks: [],
      },
      {
        index: 7,
        prompt: 3,
        purpose: none,
        status: "open",
        times: [40010, none, none, none, 40010],
        cost: none,
        tools: [],
        marks: [],
      },
    ]);
    expect(view.prompts.map((prompt) => [prompt.content, prompt.stopReason])).toEqual([
      ["Add a --verbose flag to the CLI", "end_turn"],
      ["Try again in src/flags.ts", "cancelled"],
      ["Please continue", "unfinished"],
    ]);
    // Marks between turns are filed in log order: the abort after the cancelled turn ended.
    expect(
      view.prompts.map((prompt) => prompt.closingMarks.map((mark) => `${mark.kind}@${mark.at}`)),
    ).toEqual([[], ["abort@31011"], []]);
    expect(view.compactions).toEqual([
      {
        at: 9540,
        afterTurn: 3,
        trigger: "threshold",
        success: true,
        tokensBefore: 150_000,
        tokensAfter: 12_000,
        messagesRemoved: 40,
        summary: "Summary: the user wants a --verbose flag; tests pass.",
      },
    ]);
    expect(view.summary).toEqual({
      sessionId: "golden-new-order",
      cwd: "/work/project",
      producerVersion: "0.2.0",
      startTime: "2026-01-01T10:00:00.000Z",
      models: ["anthropic:claude-sonnet-4-5"],
      prompts: 3,
      // Seven requests; the one retried after its failure is no turn of its own (usage-totals.ts).
      turns: 6,
      requests: 7,
      toolCalls: { bash: { success: 1 }, edit: { denied: 1 } },
      tokens: { input: 180_400, output: 1150, cacheRead: 4000, cacheWrite: 900, reasoning: 0 },
      cost: expect.closeTo(0.531, 9),
      costedRequests: 4,
      wallMs: 40_010,
      repaired: [],
      running: true,
    });
  });
});

describe("the session view of a damaged log", () => {
  test("skipped lines are listed and marked on the turn they interrupt, the torn tail at the end", async () => {
    const view = await viewOf("damaged.jsonl");
    expect(view.summary.repaired).toEqual([
      { line: 2, offset: expect.any(Number), length: 10, reason: "invalid_json", when: "now" },
      {
        line: 5,
        offset: expect.any(Number),
        length: expect.any(Number),
        reason: "invalid_event",
        when: "now",
      },
      { line: 11, offset: expect.any(Number), length: 20, reason: "torn_tail", when: "now" },
    ]);
    expect(view.turns.map((turn) => turn.marks.map((mark) => mark.text))).toEqual([
      ["line 5 skipped: invalid_event"],
      ["line 11 skipped: torn_tail"],
    ]);
    expect(view.prompts[0]?.marks.map((mark) => mark.text)).toEqual([
      "line 2 skipped: invalid_json",
    ]);
  });
});

describe("damage reported by session.resume", () => {
  test("is listed once, whether a later resume or this read reports it again", async () => {
    const { parseEventLog } = await import("../../src/session/event-log.js");
    const { readFile } = await import("node:fs/promises");
    const damaged = await readFile(golden("damaged.jsonl"), "utf8");
    const complete = damaged.slice(0, damaged.lastIndexOf("\n") + 1);
    const { repaired: middle, lastId } = parseEventLog(Buffer.from(complete));
    const cut = { line: 11, offset: complete.length, length: 20, reason: "torn_tail" };
    // Each resume chained to the log's last event, as the writer chains it.
    const resume = (id: string, repaired: unknown[], parentId: string | undefined) =>
      `${JSON.stringify({ type: "session.resume", data: { resumeTime: "2026-01-02T09:00:00.000Z", eventCount: 8, repaired }, id, timestamp: "2026-01-02T09:00:00.000Z", parentId })}\n`;
    const text = complete + resume("r1", [...middle, cut], lastId) + resume("r2", middle, "r1");
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const folder = await mkdtemp(join(tmpdir(), "turnloop-view-resume-"));
    await writeFile(join(folder, "events.jsonl"), text);
    const log = await readNumberedLog(join(folder, "events.jsonl"));
    await rm(folder, { recursive: true, force: true });
    const view = buildSessionView(log.events, log.repaired);
    expect(view.summary.repaired.map((note) => [note.line, note.reason, note.when])).toEqual([
      [11, "torn_tail", "on resume"],
      [2, "invalid_json", "now"],
      [5, "invalid_event", "now"],
    ]);
  });
});

describe("autopilot's cap", () => {
  test("session.autopilot_stopped follows the prompt's last turn (a nudge is on the turn it asked for), and the prompt still ends", () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 4, 0, 0, 0, ms)).toISOString();
    const lines: Array<[string, Record<string, unknown>]> = [
      ["user.message", { content: "finish it", source: "user" }],
      ["assistant.turn_start", { turnId: "t1" }],
      ["assistant.message", { messageId: "m1", content: "Done?", toolRequests: [] }],
      ["assistant.turn_end", { turnId: "t1", status: "completed", finishReason: "stop" }],
      ["user.message", { content: "Continue", source: "autopilot" }],
      ["assistant.turn_start", { turnId: "t2" }],
      ["assistant.message", { messageId: "m2", content: "Still done.", toolRequests: [] }],
      ["assistant.turn_end", { turnId: "t2", status: "completed", finishReason: "stop" }],
      ["session.autopilot_stopped", { reason: "cap_reached", continues: 1 }],
    ];
    const events = lines.map(([type, data], index) => ({
      line: index + 1,
      event: { type, data, id: `e${index}`, timestamp: at(index * 10), parentId: null },
    })) as unknown as Parameters<typeof buildSessionView>[0];
    const view = buildSessionView(events, []);
    expect(
      view.turns.map((turn) => turn.marks.map((mark) => `${mark.kind}: ${mark.text}`)),
    ).toEqual([[], ["nudge: autopilot nudge"]]);
    expect(view.prompts.map((prompt) => prompt.closingMarks.map((mark) => mark.text))).toEqual([
      ["autopilot stopped after 1 nudge: task not marked complete"],
    ]);
    expect(view.prompts.map((prompt) => prompt.stopReason)).toEqual(["end_turn"]);
  });
});

describe("a warning", () => {
  test("session.warning (a server that cut the prompt) is a mark on its turn, its message the detail", () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 4, 0, 0, 0, ms)).toISOString();
    const message = "The server counted 2048 prompt tokens for a request of about 9000";
    const lines: Array<[string, Record<string, unknown>]> = [
      ["user.message", { content: "hello", source: "user" }],
      ["assistant.turn_start", { turnId: "t1" }],
      ["assistant.message", { messageId: "m1", content: "Hi.", toolRequests: [] }],
      ["assistant.usage", { model: "ollama:qwen3", turnId: "t1", inputTokens: 2048 }],
      ["session.warning", { warningType: "prompt_truncated", message }],
      ["assistant.turn_end", { turnId: "t1", status: "completed", finishReason: "stop" }],
    ];
    const events = lines.map(([type, data], index) => ({
      line: index + 1,
      event: { type, data, id: `e${index}`, timestamp: at(index * 10), parentId: null },
    })) as unknown as Parameters<typeof buildSessionView>[0];
    const view = buildSessionView(events, []);
    expect(
      view.turns.map((turn) => turn.marks.map((mark) => [mark.kind, mark.text, mark.detail])),
    ).toEqual([[["warning", "warning: prompt_truncated", message]]]);
  });
});
