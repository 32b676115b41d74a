import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { choose } from "./client-handlers.js";
import { AcpHarness } from "./support.js";

// Trial 43 F1: `turnloop acp` read the config files once, when it started. A deny rule added to a
// config file while an editor kept the agent up did not reach sessions opened later, nor did a
// rule `/permissions save` wrote, whose message says "later sessions apply them". Sessions now
// read the files as they are when they open (src/session/session-runs.ts).

function runs(harness: AcpHarness, command: string): void {
  harness.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
}

function decisions(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "permission.completed" ? [event.data.decision] : [],
  );
}

function completions(events: readonly SessionEvent[]): unknown[] {
  return events.flatMap((event) =>
    event.type === "tool.execution_complete"
      ? [{ success: event.data.success, error: event.data.error }]
      : [],
  );
}

async function denying(file: string, rule: string): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true });
  await writeFile(file, JSON.stringify({ permissions: { deny: [rule] } }));
}

test("a deny rule added to the project's or the user's config file applies to sessions opened after", async () => {
  const harness = await AcpHarness.start({ readConfigFiles: true });
  // A session open before the change: the agent has been serving for a while.
  await harness.newSession();
  const projectFile = join(harness.cwd, ".turnloop", "config.json");
  await denying(projectFile, "bash(touch *)");
  const after = await harness.newSession();
  runs(harness, "touch denied.txt");
  expect(await harness.prompt(after, "touch it")).toEqual({ stopReason: "end_turn" });
  expect(existsSync(join(harness.cwd, "denied.txt"))).toBe(false);
  const events = await harness.persisted(after);
  expect(decisions(events)).toEqual([]);
  expect(completions(events)).toEqual([
    {
      success: false,
      error: {
        code: "denied",
        message: `Permission denied for 'bash': denied by the rule "bash(touch *)" in ${projectFile}`,
      },
    },
  ]);
  const userFile = join(harness.home, "config.json");
  await denying(userFile, "bash(mkdir *)");
  const later = await harness.newSession();
  runs(harness, "mkdir denied");
  expect(await harness.prompt(later, "make it")).toEqual({ stopReason: "end_turn" });
  expect(existsSync(join(harness.cwd, "denied"))).toBe(false);
  expect(completions(await harness.persisted(later))).toEqual([
    {
      success: false,
      error: {
        code: "denied",
        message: `Permission denied for 'bash': denied by the rule "bash(mkdir *)" in ${userFile}`,
      },
    },
  ]);
});

test("a rule `/permissions save` wrote applies to the next session without a question", async () => {
  const harness = await AcpHarness.start({ readConfigFiles: true });
  harness.behaviour.answerPermission = choose("allow_always");
  const first = await harness.newSession();
  runs(harness, "echo saved > first.txt");
  expect(await harness.prompt(first, "write it")).toEqual({ stopReason: "end_turn" });
  expect(await harness.prompt(first, "/permissions save")).toEqual({ stopReason: "end_turn" });
  const asked = () =>
    harness.behaviour.calls.filter((call) => call.method === "session/request_permission").length;
  expect(asked()).toBe(1);
  const next = await harness.newSession();
  runs(harness, "echo saved > first.txt");
  expect(await harness.prompt(next, "write it again")).toEqual({ stopReason: "end_turn" });
  expect(asked()).toBe(1);
  expect(completions(await harness.persisted(next))).toEqual([{ success: true, error: undefined }]);
});
