import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventsPath } from "../../src/session/paths.js";
import {
  contextErrorFor,
  isSummaryRequest,
  limitedModel,
  requestText,
  tokensOf,
} from "../support/context-limit.js";
import type { RecordedRequest, Reply } from "../support/fake-model-server.js";
import { type CliFixtures, test } from "../support/fixtures.js";
import { type Harness, ofType } from "../support/harness.js";
import { readFileTool } from "../support/test-tools.js";

const FILES = 40;
const FILE_BYTES = 16 * 1024;

/** Forty 16 KB files; each starts and ends with a line naming it. */
async function writeFiles(cwd: string): Promise<void> {
  for (let file = 1; file <= FILES; file++) {
    const line = `file-${file} holds this line of text for the budget test.\n`;
    const body = line.repeat(Math.ceil(FILE_BYTES / line.length));
    await writeFile(join(cwd, `file-${file}.txt`), body.slice(0, FILE_BYTES - line.length) + line);
  }
}

/** One turn of forty parallel reads: what a model asks again when it cannot see the results. */
const READ_ALL: Reply = {
  toolCalls: Array.from({ length: FILES }, (_, index) => ({
    id: `call-${index + 1}`,
    name: "read_file",
    arguments: JSON.stringify({ path: `file-${index + 1}.txt` }),
  })),
};

/** Answers once the request shows a result of every file; else asks for them all again. */
function seesEveryResult(_index: number, request: RecordedRequest): Reply {
  const text = requestText(request);
  const all = Array.from({ length: FILES }, (_, index) => `file-${index + 1} holds`);
  return all.every((marker) => text.includes(marker)) ? { text: "read them all" } : READ_ALL;
}

async function start(
  openHarness: CliFixtures["openHarness"],
  ourWindow: number,
  serverLimit: number,
): Promise<Harness> {
  const started = await openHarness({ tools: [readFileTool], maxTurns: 10 });
  started.settings.contextWindow = ourWindow;
  await writeFiles(started.cwd);
  started.server.setResponder(limitedModel({ limit: serverLimit, conversation: seesEveryResult }));
  return started;
}

describe("a turn whose tool results alone overflow the window (issue 27, item 1)", () => {
  test("40 × 16 KB against a 32k window: the results are fitted to the turn's budget and sent", async ({
    openHarness,
  }) => {
    const harness = await start(openHarness, 32_000, 32_000);
    const outcome = await harness.prompt("read all forty files");
    expect(outcome).toEqual({ stopReason: "end_turn" });
    const { requests } = harness.server;
    expect(requests.map((request) => [request.status, isSummaryRequest(request)])).toEqual([
      [200, false],
      [200, false],
    ]);
    const events = await harness.persisted();
    const results = ofType(events, "tool.execution_complete");
    expect(results).toHaveLength(FILES);
    // Parallel calls complete in any order; each result is checked against its own file.
    for (let file = 1; file <= FILES; file++) {
      const result = results.find((event) => event.data.toolCallId === `call-${file}`);
      const content = result?.data.result.content;
      const savedTo = join(harness.session.directory, "tool-results", `call-${file}.txt`);
      expect(content).toMatch(
        new RegExp(
          `^file-${file} holds[\\s\\S]*\\n\\[… [\\d,]+ lines \\(\\d+ bytes\\) omitted; full output saved to ${savedTo.replace(/[.]/g, "\\.")}\\]\\n[\\s\\S]*file-${file} holds this line of text for the budget test\\.\\n$`,
        ),
      );
      expect((await readFile(savedTo, "utf8")).length).toBe(FILE_BYTES);
    }
    // The log holds the cut results once, not a copy of the whole results per attempt.
    const logBytes = (await stat(eventsPath(harness.home, harness.session.id))).size;
    expect(logBytes).toBeLessThan(FILES * FILE_BYTES);
  });

  test("a server that answers context_length_exceeded ends the prompt with a clear error", async ({
    openHarness,
  }) => {
    // turnloop believes the window is 200k; the server's is 32k: the fitted results still overflow it.
    const harness = await start(openHarness, 200_000, 32_000);
    const outcome = await harness.prompt("read all forty files");
    expect(outcome).toMatchObject({ error: { errorType: "context_length_exceeded" } });
    const { requests } = harness.server;
    expect(requests.length).toBeLessThanOrEqual(4);
    expect(requests.map((request) => request.status)).toEqual([200, 400]);
    const events = await harness.persisted();
    const errors = ofType(events, "session.error");
    expect(errors.map((event) => event.data.errorType)).toEqual(["context_length_exceeded"]);
    expect(errors[0]?.data.message).toMatch(
      /^The context is exhausted: .* the 40 tool results of the latest turn about \d+.* The server said: HTTP 400: This model's maximum context length is 32000 tokens\./,
    );
    expect(ofType(events, "assistant.turn_start")).toHaveLength(requests.length);
    const logBytes = (await stat(eventsPath(harness.home, harness.session.id))).size;
    expect(logBytes).toBeLessThan(FILES * FILE_BYTES);
  });

  test("a compaction at the threshold keeps the latest turn's results, which the model sees", async ({
    openHarness,
  }) => {
    const harness = await start(openHarness, 32_000, 32_000);
    harness.server.setResponder(
      limitedModel({
        limit: 32_000,
        conversation: (index, request) =>
          index === 0 ? { text: "noted" } : seesEveryResult(index, request),
      }),
    );
    await harness.prompt(`keep this log in mind\n${"an earlier pasted log line\n".repeat(1_800)}`);
    const before = harness.server.requests.length;
    expect(await harness.prompt("read all forty files")).toEqual({ stopReason: "end_turn" });
    const requests = harness.server.requests.slice(before);
    expect(requests.map((request) => [request.status, isSummaryRequest(request)])).toEqual([
      [200, false],
      [200, true],
      [200, false],
    ]);
    const last = requestText(requests.at(-1));
    expect(last).toContain("<summary>");
    expect(last).not.toContain("an earlier pasted log line");
    const events = await harness.persisted();
    expect(
      ofType(events, "session.compaction_complete").map((event) => [
        event.data.trigger,
        event.data.success,
      ]),
    ).toEqual([["threshold", true]]);
  });

  test("a second compaction with no model reply since is not made: the prompt ends naming what is too big", async ({
    openHarness,
  }) => {
    const harness = await start(openHarness, 32_000, 32_000);
    const model = limitedModel({
      limit: 32_000,
      conversation: (index) => (index === 0 ? { text: "noted" } : READ_ALL),
    });
    // A server whose window is smaller than turnloop believes: it rejects the compacted request.
    let afterSummary = false;
    harness.server.setResponder((request) => {
      if (afterSummary && !isSummaryRequest(request)) {
        return contextErrorFor(request.wire, tokensOf(request), 8_000);
      }
      afterSummary = isSummaryRequest(request);
      return model(request);
    });
    await harness.prompt(`keep this log in mind\n${"an earlier pasted log line\n".repeat(1_800)}`);
    const before = harness.server.requests.length;
    const outcome = await harness.prompt("read all forty files");
    expect(outcome).toMatchObject({ error: { errorType: "context_length_exceeded" } });
    const requests = harness.server.requests.slice(before);
    expect(requests.map((request) => [request.status, isSummaryRequest(request)])).toEqual([
      [200, false],
      [200, true],
      [400, false],
    ]);
    const events = await harness.persisted();
    expect(
      ofType(events, "session.compaction_complete").map((event) => [
        event.data.trigger,
        event.data.success,
      ]),
    ).toEqual([["threshold", true]]);
    const errors = ofType(events, "session.error");
    expect(errors.map((event) => event.data.errorType)).toEqual(["context_length_exceeded"]);
    expect(errors[0]?.data.message).toMatch(
      /^The context is exhausted: the next request does not fit the context window of openai-compatible:fake-model \(8000 tokens as the server says, though 32000 are configured; --context-window or TURNLOOP_CONTEXT_WINDOW sets it\): it was compacted once in this prompt and the model has not answered since; the next request would take about \d+ tokens: .*the 40 tool results of the latest turn about \d+.* The server said: HTTP 400: This model's maximum context length is 8000 tokens\./,
    );
  });

  test("a model that asks for the same forty results again and again is stopped at its fifth turn", async ({
    openHarness,
  }) => {
    const harness = await start(openHarness, 32_000, 32_000);
    harness.server.setResponder(limitedModel({ limit: 32_000, conversation: () => READ_ALL }));
    const repetition =
      "the model made the same set of tool calls with the same results 5 turns in a row";
    expect(await harness.prompt("read all forty files")).toEqual({
      stopReason: "max_turn_requests",
      repetition,
    });
    const conversation = harness.server.requests.filter((request) => !isSummaryRequest(request));
    expect(conversation.map((request) => request.status)).toEqual([200, 200, 200, 200, 200]);
    const events = await harness.persisted();
    // The model is told from the third turn on, on each result of the batch.
    const warned = ofType(events, "tool.execution_complete").map((event) =>
      /\[turnloop: turn \d in a row making this same set of calls/.test(
        event.data.result?.content ?? "",
      ),
    );
    expect(warned).toEqual([
      ...Array<boolean>(2 * FILES).fill(false),
      ...Array<boolean>(3 * FILES).fill(true),
    ]);
    expect(ofType(events, "session.warning").map((event) => event.data)).toEqual([
      { warningType: "repetition", message: `stopped: ${repetition}` },
    ]);
  });

  test("a cut result's saved file has the session's secrets redacted, like every file under the session folder", async ({
    openHarness,
  }) => {
    const harness = await start(openHarness, 32_000, 32_000);
    const secret = "budget-secret-value-0123456789";
    harness.settings.secrets = [{ name: "BUDGET_API_TOKEN", value: secret }];
    const first = join(harness.cwd, "file-1.txt");
    const body = await readFile(first, "utf8");
    const middle = Math.floor(body.length / 2);
    await writeFile(first, `${body.slice(0, middle)}token=${secret}\n${body.slice(middle)}`);
    expect(await harness.prompt("read all forty files")).toEqual({ stopReason: "end_turn" });
    const saved = await readFile(
      join(harness.session.directory, "tool-results", "call-1.txt"),
      "utf8",
    );
    expect(saved).not.toContain(secret);
    expect(saved).toContain("token=[redacted:BUDGET_API_TOKEN]\n");
    expect(saved.replace("token=[redacted:BUDGET_API_TOKEN]\n", "")).toBe(body);
  });
});
