import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import {
  CONTEXT_ERRORS,
  isSummaryRequest,
  limitedModel,
  requestText,
  requestTokens,
  tokensOf,
} from "../support/context-limit.js";
import type { Reply, Wire } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES, ofType } from "../support/harness.js";
import { readFileTool } from "../support/test-tools.js";
import { caseA, LONG_ANSWER, readAllFiles } from "./compaction-support.js";

const WIRES: Wire[] = ["openai-chat", "openai-responses", "anthropic"];

describe.each(WIRES)("case 33 A on %s", (wire) => {
  test("compacts before the request that would pass 80 % of the window, and finishes", async ({
    openHarness,
  }) => {
    const harness = await caseA(openHarness, wire, 8_000);
    const outcome = await harness.prompt("read all files and summarize");
    expect(outcome).toEqual({ stopReason: "end_turn" });
    const { requests } = harness.server;
    expect(requests.every((request) => request.status === 200)).toBe(true);
    expect(requests.every((request) => requestTokens(request.body) <= 8_000)).toBe(true);
    const summaries = requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const last = requests.at(-1);
    if (last === undefined) {
      throw new Error("no request");
    }
    const text = requestText(last);
    expect(text).toContain("<summary>");
    expect(text).toContain("read all files and summarize");
    // The most recent tool pair is kept verbatim.
    expect(text).toContain("file-6 holds this line");
    const events = await harness.persisted();
    expect(ofType(events, "assistant.turn_start")).toHaveLength(requests.length);
    const starts = ofType(events, "session.compaction_start");
    const completes = ofType(events, "session.compaction_complete");
    expect(starts.map((event) => event.data.trigger)).toEqual(completes.map(() => "threshold"));
    for (const complete of completes) {
      expect(complete.data.success).toBe(true);
      expect(complete.data.messagesRemoved).toBeGreaterThan(0);
      expect(complete.data.postCompactionTokens).toBeLessThan(complete.data.preCompactionTokens);
    }
    const compactionTurns = ofType(events, "assistant.turn_start").filter(
      (event) => event.data.purpose === "compaction",
    );
    expect(compactionTurns).toHaveLength(summaries.length);
  });

  test("a request the server rejects for its length is compacted and replayed once", async ({
    openHarness,
  }) => {
    // turnloop believes the window is larger than the server's: the server has the last word.
    const harness = await caseA(openHarness, wire, 100_000);
    const outcome = await harness.prompt("read all files and summarize");
    expect(outcome).toEqual({ stopReason: "end_turn" });
    const { requests } = harness.server;
    const rejected = requests.filter((request) => request.status === 400);
    expect(rejected).toHaveLength(1);
    const rejectedAt = requests.findIndex((request) => request.status === 400);
    const replay = requests[rejectedAt + 2];
    expect(isSummaryRequest(requests[rejectedAt + 1])).toBe(true);
    expect(replay?.status).toBe(200);
    expect(requestText(replay)).toContain("<summary>");
    const events = await harness.persisted();
    expect(ofType(events, "session.compaction_start").map((event) => event.data.trigger)).toEqual([
      "context_limit_retry",
    ]);
    // Every request is a turn, the rejected one included; each ends, in the order they began.
    const turnStarts = ofType(events, "assistant.turn_start");
    expect(turnStarts).toHaveLength(requests.length);
    const turnEnds = ofType(events, "assistant.turn_end");
    expect(turnEnds.map((event) => event.data.turnId)).toEqual(
      turnStarts.map((event) => event.data.turnId),
    );
    expect(turnEnds[rejectedAt]?.data.status).toBe("failed");
    expect(turnStarts[rejectedAt + 1]?.data.purpose).toBe("compaction");
  });
});

/** The turns of a session's log: `[purpose, status]` per model request, in order. */
function turnsOf(events: readonly SessionEvent[]): Array<[string, string | undefined]> {
  const ends = new Map(
    ofType(events, "assistant.turn_end").map((event) => [event.data.turnId, event.data.status]),
  );
  return ofType(events, "assistant.turn_start").map((event) => [
    event.data.purpose ?? "conversation",
    ends.get(event.data.turnId),
  ]);
}

describe("context-length errors in each server's words are compacted and replayed", () => {
  const wordings: Array<[string, Reply]> = [
    ["OpenAI", CONTEXT_ERRORS.openai(9_100, 8_000)],
    ["Ollama", CONTEXT_ERRORS.ollama()],
    ["vLLM", CONTEXT_ERRORS.vllm(9_100, 8_000)],
    ["llama.cpp", CONTEXT_ERRORS.llamaCpp(9_100, 8_000)],
  ];
  test.for(wordings)("%s", async ([_name, error], { openHarness }) => {
    const harness = await openHarness({ wire: "openai-chat" });
    // Long answers, so that the compaction makes the replay smaller than the rejected request.
    harness.server.enqueue(
      { text: "first answer ".repeat(200) },
      { text: "second answer ".repeat(200) },
      error,
      { text: "Task: greet." },
      { text: "replayed" },
    );
    await harness.prompt("hello");
    await harness.prompt("hello again");
    const outcome = await harness.prompt("and once more");
    expect(outcome).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([
      200, 200, 400, 200, 200,
    ]);
    expect(requestText(harness.server.requests[4])).toContain("Task: greet.");
    expect(turnsOf(await harness.persisted())).toEqual([
      ["conversation", "completed"],
      ["conversation", "completed"],
      ["conversation", "failed"],
      ["compaction", "completed"],
      ["conversation", "completed"],
    ]);
  });

  test("Anthropic", async ({ openHarness }) => {
    const harness = await openHarness({ wire: "anthropic" });
    harness.server.enqueue(
      { text: "first answer ".repeat(200) },
      CONTEXT_ERRORS.anthropic(9_100, 8_000),
      { text: "Task: greet." },
      { text: "replayed" },
    );
    await harness.prompt("hello");
    expect(await harness.prompt("hello again")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 400, 200, 200]);
    expect(turnsOf(await harness.persisted())).toEqual([
      ["conversation", "completed"],
      ["conversation", "failed"],
      ["compaction", "completed"],
      ["conversation", "completed"],
    ]);
  });
});

describe("the summary request", () => {
  test("is a turn per attempt: a provider retry ends the failed attempt and starts another", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "openai-chat", tuning: FAST_RETRIES });
    harness.server.enqueue({ text: LONG_ANSWER }, { text: "two" });
    await harness.prompt("first");
    await harness.prompt("second");
    const unavailable: Reply = {
      status: 503,
      body: { error: { message: "Service Unavailable", type: "api_error" } },
    };
    harness.server.enqueue(unavailable, { text: "Task: count." });
    const before = harness.events.length;
    expect(await harness.session.compact(harness.settings, "")).toMatchObject({ ok: true });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200, 503, 200]);
    const compaction = harness.events.slice(before);
    // No reply, delta or tool-call start of the summary: it is only in compaction_complete.
    expect(compaction.map((event) => event.type)).toEqual([
      "session.compaction_start",
      "assistant.turn_start",
      "assistant.turn_end",
      "assistant.retry",
      "assistant.turn_start",
      "assistant.usage",
      "assistant.turn_end",
      "session.compaction_complete",
    ]);
    const persisted = await harness.persisted();
    expect(turnsOf(persisted)).toEqual([
      ["conversation", "completed"],
      ["conversation", "completed"],
      ["compaction", "failed"],
      ["compaction", "completed"],
    ]);
    expect(ofType(persisted, "assistant.turn_start")).toHaveLength(harness.server.requests.length);
    const [failed] = ofType(compaction, "assistant.turn_end");
    expect(ofType(compaction, "assistant.retry")[0]?.data.turnId).toBe(failed?.data.turnId);
    expect(ofType(compaction, "session.compaction_complete")[0]?.data.summaryContent).toContain(
      "Task: count.",
    );
  });
});

describe("case 33 B: the summary request itself overflows", () => {
  test.for([
    ["before the request", 8_000],
    ["after the server's rejection", 100_000],
  ] as const)(
    "%s: two bounded attempts, then a clear error, and no loop",
    async ([_name, window], { openHarness }) => {
      const harness = await caseA(openHarness, "openai-chat", window);
      harness.server.setResponder(
        limitedModel({
          limit: 8_000,
          conversation: readAllFiles,
          summary: () => CONTEXT_ERRORS.openai(9_000, 8_000),
        }),
      );
      const outcome = await harness.prompt("read all files and summarize");
      expect(outcome).toMatchObject({ error: { errorType: "context_length_exceeded" } });
      expect("error" in outcome && outcome.error.message).toMatch(/context is exhausted/);
      const summaries = harness.server.requests.filter(isSummaryRequest);
      expect(summaries).toHaveLength(2);
      const [first, second] = summaries.map((request) => requestTokens(request.body));
      expect(first).toBeLessThanOrEqual(8_000);
      expect(second).toBeLessThan(first ?? 0);
      const events = await harness.persisted();
      expect(
        ofType(events, "session.compaction_complete").map((event) => event.data.success),
      ).toEqual([false]);
      // The next prompt tries once more, as boundedly, and fails the same clear way.
      const before = harness.server.requests.length;
      const next = await harness.prompt("go on");
      expect(next).toMatchObject({ error: { errorType: "context_length_exceeded" } });
      expect(harness.server.requests.length - before).toBeLessThanOrEqual(3);
    },
  );
});

describe("case 33 C: one huge tool result", () => {
  test("is cut to the turn's budget before it is sent, its call kept with it", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tools: [readFileTool] });
    harness.settings.contextWindow = 8_000;
    await writeFile(join(harness.cwd, "huge.txt"), "0123456789abcdef\n".repeat(2_400));
    harness.server.setResponder(
      limitedModel({
        limit: 8_000,
        conversation: (index) =>
          index === 0
            ? {
                toolCalls: [
                  { id: "call-huge", name: "read_file", arguments: '{"path":"huge.txt"}' },
                ],
              }
            : { text: "finished" },
      }),
    );
    expect(await harness.prompt("read huge.txt")).toEqual({ stopReason: "end_turn" });
    const { requests } = harness.server;
    expect(requests.map((request) => [request.status, isSummaryRequest(request)])).toEqual([
      [200, false],
      [200, false],
    ]);
    // No compaction was needed: the result was cut, and the pair reached the model together.
    const lastText = requestText(requests.at(-1));
    expect(lastText).toContain("call-huge");
    expect(lastText).toMatch(
      /\[… [\d,]+ lines \(\d+ bytes\) omitted; full output saved to [^\]]*call-huge\.txt\]/,
    );
    expect(tokensOf(requests.at(-1))).toBeLessThanOrEqual(8_000);
  });
});

describe("case 33 D: a server that truncates silently", () => {
  test("is reported when it counts far fewer prompt tokens than were sent", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "openai-chat", model: "ollama:qwen3" });
    harness.settings.contextWindow = 32_000;
    harness.server.enqueue({ text: "I have no tools", usage: { input: 2_048, output: 5 } });
    const prompt = `read all files and summarize\n${"some pasted log line\n".repeat(2_800)}`;
    expect(await harness.prompt(prompt)).toEqual({ stopReason: "end_turn" });
    const warnings = ofType(harness.events, "session.warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data.warningType).toBe("prompt_truncated");
    expect(warnings[0]?.data.message).toMatch(/server counted 2048 prompt tokens/);
  });

  test("an Ollama model's window defaults to Ollama's 4,096-token context", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "openai-chat", model: "ollama:qwen3" });
    harness.server.enqueue({ text: "I have no tools", usage: { input: 2_048, output: 5 } });
    const prompt = `summarize\n${"some pasted log line\n".repeat(2_800)}`;
    expect(await harness.prompt(prompt)).toEqual({ stopReason: "end_turn" });
    const events = harness.events;
    // The one user message alone is over the 4,096 tokens: no compaction can make it fit, so
    // the request goes out as it is (the server decides) and the truncation is reported.
    expect(ofType(events, "session.compaction_start")).toEqual([]);
    expect(harness.server.requests).toHaveLength(1);
    expect(ofType(events, "session.warning").map((event) => event.data.warningType)).toEqual([
      "prompt_truncated",
    ]);
  });
});
