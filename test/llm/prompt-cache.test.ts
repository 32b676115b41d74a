import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";
import { requestBody, statuses } from "./helpers.js";

const listCall = { id: "toolu_1", name: "bash", arguments: '{"command":"ls W"}' };
const breakpoint = { type: "ephemeral" };

/** A tool loop (two requests), then a second prompt (a third request) on `wire`. */
async function threeRequests(harness: Harness): Promise<void> {
  await mkdir(join(harness.cwd, "W"));
  harness.server.enqueue({ toolCalls: [listCall] }, { text: "Listed." }, { text: "ok" });
  expect(await harness.prompt("list W")).toEqual({ stopReason: "end_turn" });
  expect(await harness.prompt("and now?")).toEqual({ stopReason: "end_turn" });
  expect(statuses(harness)).toEqual([200, 200, 200]);
}

describe("Anthropic prompt-cache breakpoints", () => {
  test("the system prompt, the last message and the previous request's last message are marked", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tools: [bashTool] });
    await threeRequests(harness);
    const system = requestBody(harness, 0).system;
    expect(system).toEqual([{ type: "text", text: expect.any(String), cache_control: breakpoint }]);
    const user = (text: string, marked: boolean) => ({
      role: "user",
      content: [{ type: "text", text, ...(marked ? { cache_control: breakpoint } : {}) }],
    });
    const call = {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls W" } }],
    };
    const result = (marked: boolean) => ({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: expect.any(String),
          ...(marked ? { cache_control: breakpoint } : {}),
        },
      ],
    });
    const listed = { role: "assistant", content: [{ type: "text", text: "Listed." }] };
    expect(harness.server.requests.map((request) => request.body)).toEqual([
      expect.objectContaining({ system, messages: [user("list W", true)] }),
      expect.objectContaining({ system, messages: [user("list W", true), call, result(true)] }),
      expect.objectContaining({
        system,
        messages: [user("list W", false), call, result(true), listed, user("and now?", true)],
      }),
    ]);
    // The tools come before the system prompt in the cached prefix: they carry no breakpoint.
    for (const index of [0, 1, 2]) {
      expect(JSON.stringify(requestBody(harness, index).tools)).not.toContain("cache_control");
    }
  });

  for (const wire of ["anthropic", "openai-responses", "openai-chat"] satisfies Wire[]) {
    test(`${wire}: an empty system prompt (an app's replaced by "") is not sent`, async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire, tools: [bashTool], systemPrompt: "" });
      await threeRequests(harness);
      const bodies = harness.server.requests.map((request) => JSON.stringify(request.body));
      expect(bodies.map((body) => /"system"|"developer"/.test(body))).toEqual([
        false,
        false,
        false,
      ]);
      expect(requestBody(harness, 0)).not.toHaveProperty("system");
    });
  }

  for (const wire of ["openai-responses", "openai-chat"] satisfies Wire[]) {
    test(`${wire}: no breakpoint is sent (the OpenAI API caches prefixes by itself)`, async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire, tools: [bashTool] });
      await threeRequests(harness);
      for (const request of harness.server.requests) {
        expect(JSON.stringify(request.body)).not.toMatch(/cache_control|cacheControl/);
      }
    });
  }
});
