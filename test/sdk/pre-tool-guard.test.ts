import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import {
  approveAll,
  type HookHandler,
  type TurnloopClient,
  type TurnloopSession,
} from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, sdkWarnings } from "./support.js";

/**
 * An app's `preToolUse` guard fails closed (README, "Hooks"): one that throws, answers no
 * decision (`permissionDecision: "DENY"`, the bare string `"deny"`) or never answers denies the
 * call, even with `approveAll` as the permission handler; the model reads why, `hook.end` records
 * `success: false` and the reason, and the app gets one `TurnloopSdkWarning` per cause.
 */

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

const warnings = sdkWarnings();

/**
 * In one session of `on` (default: the file's client) guarded by `guard`, the model removes
 * `victim-<n>` with bash in each of `rounds` prompts: the results the model read, the `hook.end`
 * of each `preToolUse` (success, error, output), and whether each victim survived.
 */
async function guarded(guard: HookHandler<"preToolUse">, rounds: number, on = client) {
  const session: TurnloopSession = await on.createSession({
    onPermissionRequest: approveAll,
    hooks: { onPreToolUse: guard },
  });
  const results: unknown[] = [];
  const ends: unknown[] = [];
  session.on((event: WireEvent) => {
    if (event.type === "tool.execution_complete") {
      results.push(event.data.result?.content ?? event.data.error?.message);
    } else if (event.type === "hook.end" && event.data.hookType === "preToolUse") {
      const { success, error, output } = event.data;
      ends.push({ success, error, output });
    }
  });
  const survived: boolean[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const victim = join(fixture.cwd, `victim-${round}`);
    await writeFile(victim, "x");
    fixture.model.enqueue(
      callingTools([`call_${round}`, "bash", { command: `rm -f victim-${round}` }]),
      { text: "Done." },
    );
    await session.sendAndWait({ prompt: "go" }, 60_000);
    survived.push(existsSync(victim));
  }
  await session.disconnect();
  // Node emits warnings on a tick of its own.
  await new Promise((resolve) => setImmediate(resolve));
  return { results, ends, survived };
}

/** What the model reads for a call the failed guard denied. */
function deniedBecause(reason: string): string {
  return `Permission denied for 'bash': the app's preToolUse hook failed (${reason}), and a guard that fails denies the call`;
}

test("a guard that throws denies the call, twice, warning once", async () => {
  const reason = "onPreToolUse threw: guard service unreachable";
  const outcome = await guarded(() => {
    throw new Error("guard service unreachable");
  }, 2);
  expect(outcome).toEqual({
    results: [deniedBecause(reason), deniedBecause(reason)],
    ends: [
      { success: false, error: { message: reason } },
      { success: false, error: { message: reason } },
    ],
    survived: [true, true],
  });
  expect(warnings).toEqual([`${reason}; a preToolUse guard that fails denies the call`]);
});

test('a guard answering permissionDecision "DENY" or the bare string "deny" denies the call, one warning for both', async () => {
  const answers: unknown[] = [
    { permissionDecision: "DENY", permissionDecisionReason: "no rm" },
    "deny",
  ];
  const outcome = await guarded(() => answers.shift() as ReturnType<HookHandler<"preToolUse">>, 2);
  const upper = 'permissionDecision must be "allow", "deny" or "ask", not "DENY"';
  const bare = 'its answer must be an object ({permissionDecision, …}) or nothing, not "deny"';
  expect(outcome).toEqual({
    results: [deniedBecause(upper), deniedBecause(bare)],
    ends: [
      {
        success: false,
        error: { message: upper },
        output: { permissionDecision: "DENY", permissionDecisionReason: "no rm" },
      },
      { success: false, error: { message: bare }, output: "deny" },
    ],
    survived: [true, true],
  });
  expect(warnings).toEqual([
    `onPreToolUse answered {"permissionDecision":"DENY","permissionDecisionReason":"no rm"}: ${upper}; a preToolUse guard that fails denies the call`,
  ]);
});

// The wait is the server's TURNLOOP_HOOK_TIMEOUT_MS (30 s unset): the guard never answers, so
// no wait is too short for this test, and a second of it keeps the suite from waiting out 30.
test("a guard that never answers denies the call when the runtime stops waiting (TURNLOOP_HOOK_TIMEOUT_MS), with a warning", async () => {
  const impatient = await fixture.startedClient({
    env: { ...fixture.env, TURNLOOP_HOOK_TIMEOUT_MS: "1000" },
  });
  const reason = "no answer to hooks.invoke within 1000 ms";
  const outcome = await guarded(() => new Promise(() => {}), 1, impatient);
  expect(outcome).toEqual({
    results: [deniedBecause(reason)],
    ends: [{ success: false, error: { message: reason } }],
    survived: [true],
  });
  expect(warnings).toEqual([
    "onPreToolUse did not answer within 1000 ms; a preToolUse guard that fails denies the call",
  ]);
});
