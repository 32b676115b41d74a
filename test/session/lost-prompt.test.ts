/**
 * A trial of round 3, session 43 (F1): a session whose prompt line was damaged (cut in half) showed
 * the model's reply, then "(no prompt yet: nothing was asked in this session)", the listing titled
 * it "(no prompt yet)", and the request after `-p --resume` began with the model's reply, which
 * Anthropic rejects. The one fold now finds the lost prompt (a conversation turn starting while no
 * prompt is being answered) and every view says a prompt was lost with a damaged line; the model
 * gets a placeholder user message in its place, on every wire.
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, vi } from "vitest";
import { listPage } from "../../src/acp/session-setup.js";
import { runSessionsExport } from "../../src/cli/session-view/command.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import { sessionListEntry } from "../../src/server/state-methods.js";
import { SessionHost } from "../../src/session/host.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { Session } from "../../src/session/session.js";
import { summaryLine } from "../../src/session/session-store.js";
import { CollectedText } from "../support/collected-text.js";
import { defaultFaceOptions } from "../support/face-options.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";

/**
 * Closes the harness's session and cuts each line of its log holding one of `prompts` in half.
 * @returns the session's id.
 */
async function damagePrompts(harness: Harness, ...prompts: string[]): Promise<string> {
  const sessionId = harness.session.id;
  await harness.session.close();
  const path = join(harness.home, "session-state", sessionId, "events.jsonl");
  const lines = (await readFile(path, "utf8")).split("\n").map((line) => {
    const damaged = prompts.some((prompt) => line.includes(`"content":"${prompt}"`));
    return damaged ? line.slice(0, line.length / 2) : line;
  });
  await writeFile(path, lines.join("\n"));
  return sessionId;
}

const LOST =
  "[A message of the user was here, but it was lost: its line in the session log was damaged and could not be read.]";

/** The conversation of request `index` as `[role, text]` pairs, the system prompt left out. */
function conversation(harness: Harness, index: number): Array<[string, string]> {
  const body = harness.server.requests[index]?.body as Record<string, unknown>;
  const items = (body.messages ?? body.input) as Array<Record<string, unknown>>;
  return items
    .filter((item) => item.role !== "system" && item.role !== "developer")
    .map((item) => [String(item.role), textOf(item.content)]);
}

function textOf(content: unknown): string {
  if (typeof content === "string") {
    return content;
  }
  return (content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
}

const WIRES: Wire[] = ["openai-chat", "openai-responses", "anthropic"];

describe.for(WIRES)("a prompt lost with a damaged line, resumed on %s", (wire) => {
  test("the model gets a placeholder user message where the prompt was", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire });
    harness.server.enqueue({ text: "first answer" }, { text: "second answer" });
    await harness.prompt("first prompt");
    const sessionId = await damagePrompts(harness, "first prompt");
    const session = await Session.resume(openSessionStore(harness.home), sessionId);
    try {
      const outcome = await session.prompt(harness.settings, "next prompt");
      expect({ outcome, requests: harness.server.requests.length }).toEqual({
        outcome: { stopReason: "end_turn" },
        requests: 2,
      });
      expect({
        status: harness.server.requests[1]?.status,
        conversation: conversation(harness, 1),
      }).toEqual({
        status: 200,
        conversation: [
          ["user", LOST],
          ["assistant", "first answer"],
          ["user", "next prompt"],
        ],
      });
    } finally {
      await session.close();
    }
  });
});

describe("a session whose prompts were lost with damaged lines", () => {
  test("show, the listing and the Markdown export say each prompt was lost", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue({ text: "first answer" }, { text: "second answer" });
    await harness.prompt("first prompt");
    await harness.prompt("second prompt");
    const sessionId = await damagePrompts(harness, "first prompt", "second prompt");
    vi.stubEnv("TURNLOOP_HOME", harness.home);
    const outputs: Record<string, string> = {};
    try {
      for (const kind of ["sessions-show", "sessions-list"] as const) {
        const stdout = new CollectedText();
        const command = { kind, sessionId, json: false };
        expect(await runSessionsCommand(command, { stdout, stderr: new CollectedText() })).toBe(0);
        outputs[kind] = stdout.text;
      }
    } finally {
      vi.unstubAllEnvs();
    }
    const markdown = new CollectedText();
    const io = {
      stdout: markdown,
      stderr: new CollectedText(),
      cwd: harness.cwd,
      platform: process.platform,
    };
    const env = { TURNLOOP_HOME: harness.home };
    expect(await runSessionsExport({ sessionId, format: "markdown" }, { ...io, env })).toBe(0);
    // The HTML view draws the JSON export's data.
    const data = new CollectedText();
    const json = { ...io, stdout: data, env };
    expect(await runSessionsExport({ sessionId, format: "json" }, json)).toBe(0);
    const prompts = (JSON.parse(data.text) as { prompts: Array<Record<string, unknown>> }).prompts;
    expect(prompts.map(({ content, lost, stopReason }) => ({ content, lost, stopReason }))).toEqual(
      [1, 2].map(() => ({
        content: "(a prompt lost with a damaged line of the log)",
        lost: true,
        stopReason: "end_turn",
      })),
    );
    const summary = (await openSessionStore(harness.home).list())[0];
    expect(summary === undefined ? undefined : summaryLine(summary)).toBe(
      "(a prompt lost with a damaged line of the log)",
    );
    expect(outputs["sessions-show"]?.split("\n").slice(1)).toEqual([
      "[damaged line 2 skipped (invalid_json)]",
      "[damaged line 7 skipped (invalid_json)]",
      "",
      "> (a prompt lost with a damaged line of the log)",
      "first answer",
      "[stop: end_turn]",
      "",
      "> (a prompt lost with a damaged line of the log)",
      "second answer",
      "[stop: end_turn]",
      "",
    ]);
    expect(outputs["sessions-list"]?.split("\n")[1]).toBe(
      "    (a prompt lost with a damaged line of the log)",
    );
    const headings = markdown.text
      .split("\n")
      .filter((line) => line.startsWith("## Prompt") || line.startsWith("> ("));
    expect(headings).toEqual([
      "## Prompt 1 · end_turn",
      "> (a prompt lost with a damaged line of the log)",
      "## Prompt 2 · end_turn",
      "> (a prompt lost with a damaged line of the log)",
    ]);
  });
});

describe("a session whose only prompt was lost with a damaged line, listed to apps and editors", () => {
  // Round 3 session 44: the CLI's views said the prompt was lost, while the SDK's session.list
  // and session.getMetadata had no summary and ACP's session/list no title for it.
  test("the SDK's summary and ACP's title say what the CLI's listing says", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue({ text: "only answer" });
    await harness.prompt("only prompt");
    const sessionId = await damagePrompts(harness, "only prompt");
    const [summary] = await openSessionStore(harness.home).list();
    const host = new SessionHost({
      home: harness.home,
      env: {},
      config: resolveRunConfig(defaultFaceOptions(harness.cwd), {}),
    });
    const listed = (await listPage(host, {})).sessions;
    const words = "(a prompt lost with a damaged line of the log)";
    expect({
      cli: summary === undefined ? undefined : summaryLine(summary),
      sdk: summary === undefined ? undefined : sessionListEntry(summary).summary,
      acp: listed.map(({ sessionId, title }) => ({ sessionId, title })),
    }).toEqual({ cli: words, sdk: words, acp: [{ sessionId, title: words }] });
  });
});
