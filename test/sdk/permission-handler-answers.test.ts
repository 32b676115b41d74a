import { beforeAll, describe, expect, test } from "vitest";
import type { PermissionHandler, TurnloopClient } from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, requestMessages, sdkWarnings } from "./support.js";

/**
 * An app's permission handler that gives no usable decision (a JavaScript app that forgets its
 * `return`, or a kind the runtime does not know) denies the call as a throwing handler does
 * (Copilot: "could not request permission"), and the app is told by a `TurnloopSdkWarning`;
 * the prompt never waits for an answer that will not come (a fresh user's trial, finding 20).
 */

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

const warnings = sdkWarnings();

/** The tool result the model got for `echo ran` under `handler`, and the prompt's answer. */
async function promptWith(handler: PermissionHandler) {
  const session = await client.createSession({ onPermissionRequest: handler });
  fixture.model.enqueue(callingTools(["call_echo", "bash", { command: "echo ran" }]), {
    text: "Done.",
  });
  const next = fixture.model.requests.length;
  const reply = await session.sendAndWait({ prompt: "run echo" }, 30_000);
  const toolResults = requestMessages(fixture.model, next + 1)
    .filter((message) => message.role === "tool")
    .map(({ content }) => content);
  await session.disconnect();
  return { answer: reply?.data.content, toolResults };
}

const DENIED = "Permission denied and could not request permission from user";

describe("a permission handler without a usable decision", () => {
  test("returning nothing denies the call and warns the app", async () => {
    const result = await promptWith((() => undefined) as unknown as PermissionHandler);
    expect(result).toEqual({ answer: "Done.", toolResults: [DENIED] });
    // Node emits warnings on the next tick of its own.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([
      "onPermissionRequest returned undefined, not a decision object; the call was denied as user-not-available",
    ]);
  });

  test("a kind the runtime refuses denies the call and warns with the runtime's reason", async () => {
    // A JavaScript app, or one that casts: the type no longer lets "maybe" through.
    const result = await promptWith((() => ({ kind: "maybe" })) as unknown as PermissionHandler);
    expect(result).toEqual({ answer: "Done.", toolResults: [DENIED] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^the runtime refused onPermissionRequest's decision: .*unknown permission decision "maybe".*; the call was denied as user-not-available$/,
    );
  });
});
