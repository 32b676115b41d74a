import { describe, expect } from "vitest";
import { NOTHING_TO_COMPACT } from "../../src/agent/compaction.js";
import { limitedModel, requestText } from "../support/context-limit.js";
import { test } from "../support/fixtures.js";
import { ofType } from "../support/harness.js";
import { caseA, FILES, LONG_ANSWER, readAllFiles } from "./compaction-support.js";

/**
 * What the session sends once compacted (case 33): a reloaded session sends the compacted view
 * while the log keeps the full history; a manual compaction and a switch to a smaller window.
 */
describe("the compacted view", () => {
  test("is what a reloaded session sends, and the full history stays in the log", async ({
    openHarness,
  }) => {
    const harness = await caseA(openHarness, "openai-responses", 8_000);
    await harness.prompt("read all files and summarize");
    const live = JSON.stringify(harness.session.history.messages);
    const persistedBefore = await harness.persisted();
    const reopened = await harness.reopen();
    expect(JSON.stringify(reopened.history.messages)).toBe(live);
    // Nothing was deleted: every tool result is still on disk.
    expect(ofType(persistedBefore, "tool.execution_complete")).toHaveLength(FILES);
    harness.server.setResponder(undefined);
    harness.server.enqueue({ text: "still here" });
    await harness.prompt("anything else?");
    const last = harness.server.requests.at(-1);
    expect(last?.status).toBe(200);
    expect(requestText(last)).toContain("<summary>");
    expect(requestText(last)).not.toContain("file-1 holds this line");
  });

  test("a manual compaction passes the instructions; one that would remove nothing is refused, nothing written", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "openai-chat" });
    harness.server.enqueue({ text: LONG_ANSWER });
    await harness.prompt("first");
    const written = harness.events.length;
    const nothing = await harness.session.compact(harness.settings, "");
    expect(nothing).toEqual({ ok: false, cancelled: false, message: NOTHING_TO_COMPACT });
    expect(harness.events.length).toBe(written);
    harness.server.enqueue({ text: "two" }, { text: "Task: count." });
    await harness.prompt("second");
    const result = await harness.session.compact(harness.settings, "keep the numbers");
    expect(result).toMatchObject({ ok: true, messagesRemoved: 3 });
    expect(requestText(harness.server.requests.at(-1))).toContain("keep the numbers");
    const completes = ofType(harness.events, "session.compaction_complete");
    expect(completes.map((event) => [event.data.trigger, event.data.success])).toEqual([
      ["manual", true],
    ]);
    expect(completes[0]?.data.customInstructions).toBe("keep the numbers");
    expect(harness.session.history.messages.map((message) => message.role)).toEqual([
      "user",
      "user",
      "assistant",
    ]);
  });

  test("switching to a model with a smaller window compacts first", async ({ openHarness }) => {
    const harness = await caseA(openHarness, "openai-chat", 100_000);
    harness.server.setResponder(
      limitedModel({ limit: 100_000, conversation: (index) => readAllFiles(index + 2) }),
    );
    await harness.prompt("read files 3 to 6");
    const { createProvider, resolveModel } = await import("../../src/llm/models.js");
    const small = resolveModel(
      { model: "openai-compatible:small-model", baseUrl: `${harness.server.url}/v1` },
      {},
    );
    if (!small.ok) {
      throw new Error(small.message);
    }
    harness.settings.provider = createProvider(small.configuration);
    harness.settings.contextWindow = 6_000;
    harness.server.setResponder(
      limitedModel({ limit: 6_000, conversation: () => ({ text: "ok" }) }),
    );
    expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
    const starts = ofType(harness.events, "session.compaction_start");
    expect(starts.map((event) => [event.data.trigger, event.data.tokenLimit])).toEqual([
      ["model_switch", 6_000],
    ]);
  });
});
