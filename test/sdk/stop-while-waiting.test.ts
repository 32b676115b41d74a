import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  approveAll,
  defineTool,
  type TurnloopClient,
  type TurnloopSession,
} from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { fixtureForEachTest } from "./support.js";

// Trial 41 (F13): `client.stop()` while `sendAndWait` waited resolved it with `undefined`, the
// value of an aborted prompt or of one without a reply, though its docstring says it throws when
// the client stops first: the app could not tell that the shutdown cut its prompt.

const fixture = fixtureForEachTest();

/** How `sendAndWait` ended when `end` ran while its prompt waited on a tool that never answers. */
async function promptInTool(
  end: (client: TurnloopClient, session: TurnloopSession) => Promise<void>,
): Promise<unknown> {
  const client = await fixture.startedClient();
  const running = gate();
  const never = defineTool("wait_forever", {
    parameters: z.object({}),
    readOnly: true,
    handler: async (_args, invocation) => {
      running.open();
      await new Promise((resolve) => invocation.signal.addEventListener("abort", resolve));
      return "stopped";
    },
  });
  const session = await client.createSession({ tools: [never], onPermissionRequest: approveAll });
  fixture.model.enqueue(callingTools(["call_1", "wait_forever", {}]), { text: "never sent" });
  const waiting = session.sendAndWait("go").then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error instanceof Error ? error.message : String(error) }),
  );
  await running.opened;
  await end(client, session);
  return waiting;
}

describe("sendAndWait when the app's own ending cuts its prompt", () => {
  test("client.stop() rejects it: the client stopped before the prompt ended", async () => {
    const outcome = await promptInTool((client) => client.stop());
    expect(outcome).toEqual({ rejected: "the client stopped before the prompt ended" });
  });

  test("session.disconnect() rejects it: the session was disconnected before the prompt ended", async () => {
    const outcome = await promptInTool((_client, session) => session.disconnect());
    expect(outcome).toEqual({
      rejected: "the session was disconnected before the prompt ended",
    });
  });
});
