/**
 * ACP `usage_update.cost` is the session's cost so far (README, ACP) after `session/load` and
 * `session/resume` too:
 * the prompts before the load count, as in `/usage` (the interactive face's command, src/session/
 * commands.ts) and in the stored `assistant.usage` costs the SDK's `getMessages` returns (a fresh
 * user's trial, bench/notes/trial.md item 3: the figure was the new prompt's cost only).
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness } from "./support.js";

/** The cost of the prompts "first" (1,000 in, 100 out) and "second" (2,000 in, 10 out) with gpt-4.1. */
const TOTAL = 0.0028 + 0.00408;

/**
 * A session with one prompt, reopened by a restarted agent with `reopen`; then a second prompt:
 * the harness, the session and the second prompt's `usage_update` costs.
 */
async function secondPromptCosts(
  reopen: (harness: AcpHarness, sessionId: string) => Promise<unknown>,
): Promise<{ harness: AcpHarness; sessionId: string; costs: unknown[] }> {
  let harness = await AcpHarness.start({
    env: { TURNLOOP_MODEL: "openai-chat:gpt-4.1", OPENAI_API_KEY: "test-key" },
  });
  harness.server.enqueue(
    { text: "one", usage: { input: 1000, output: 100 } },
    { text: "two", usage: { input: 2000, output: 10 } },
  );
  const sessionId = await harness.newSession();
  await harness.prompt(sessionId, "first");
  harness = await harness.restart();
  await reopen(harness, sessionId);
  const beforeSecond = harness.updates(sessionId).length;
  await harness.prompt(sessionId, "second");
  const costs = harness
    .updates(sessionId)
    .slice(beforeSecond)
    .flatMap((update) => (update.sessionUpdate === "usage_update" ? [update.cost] : []));
  return { harness, sessionId, costs };
}

describe("usage_update.cost after session/load and session/resume", () => {
  test("counts the prompts before the load; /usage and the stored costs say the same", async () => {
    const { harness, sessionId, costs } = await secondPromptCosts((agent, id) =>
      agent.loadSession(id),
    );
    const total = TOTAL;
    expect(costs).toEqual([{ amount: expect.closeTo(total, 10), currency: "USD" }]);

    const beforeUsage = harness.updates(sessionId).length;
    await harness.prompt(sessionId, "/usage");
    const said = harness
      .updates(sessionId)
      .slice(beforeUsage)
      .flatMap((update) =>
        update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
          ? [update.content.text]
          : [],
      )
      .join("");
    expect(said).toContain(`cost:           $${total.toFixed(4)}`);

    const log = await readFile(
      join(harness.home, "session-state", sessionId, "events.jsonl"),
      "utf8",
    );
    const stored = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: { cost?: number } })
      .filter((event) => event.type === "assistant.usage")
      .reduce((sum, event) => sum + (event.data.cost ?? 0), 0);
    expect(stored).toBeCloseTo(total, 10);
  });

  test("after session/resume (no replay) too", async () => {
    const { costs } = await secondPromptCosts((agent, sessionId) =>
      agent.client.request(acp.methods.agent.session.resume, {
        sessionId,
        cwd: agent.cwd,
        mcpServers: [],
      }),
    );
    expect(costs).toEqual([{ amount: expect.closeTo(TOTAL, 10), currency: "USD" }]);
  });
});
