import { expect } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { builtinTools } from "../../src/tools/index.js";
import { test } from "../support/fixtures.js";

test("the first request of a simple prompt (system prompt, tool schemas, prompt) stays under 6 KB", async ({
  openHarness,
}) => {
  const harness = await openHarness({ wire: "anthropic", tools: builtinTools() });
  harness.settings.systemPrompt = buildSystemPrompt({
    cwd: harness.cwd,
    platform: "linux",
    date: new Date(),
    autopilot: false,
  });
  harness.server.enqueue({ text: "ok" });
  await harness.prompt("What does this repository do?");
  const bytes = Buffer.byteLength(JSON.stringify(harness.server.requests[0]?.body));
  expect(bytes).toBeLessThan(6 * 1024);
});
