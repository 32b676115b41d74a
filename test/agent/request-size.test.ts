import { afterEach, expect, test } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { builtinTools } from "../../src/tools/index.js";
import { type Harness, startHarness } from "../support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
});

test("the first request of a simple prompt (system prompt, tool schemas, prompt) stays under 6 KB", async () => {
  harness = await startHarness({ wire: "anthropic", tools: builtinTools() });
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
