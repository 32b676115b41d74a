import { approveAll, type CopilotClient } from "@github/copilot-sdk";
import { beforeAll, describe, expect, test } from "vitest";
import { fixtureForFile, startCopilotClient } from "./support.js";

/**
 * Round 3 session 22, lane sdk: the official `@github/copilot-sdk` sends settings turnloop does
 * not implement. Those it sends by default pass silently; one given a value that asks for
 * something is accepted and said once, in a `session.warning`; a wrong value is refused in plain
 * words.
 */
const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  client = await startCopilotClient(fixture);
});

async function warnings(session: { getEvents(): Promise<Array<{ type: string; data: unknown }>> }) {
  return (await session.getEvents()).flatMap((event) =>
    event.type === "session.warning" ? [event.data] : [],
  );
}

describe("the Copilot SDK's settings", () => {
  test("defaults pass silently, one turnloop does not implement is said, a wrong value is refused", async () => {
    const plain = await client.createSession({ onPermissionRequest: approveAll });
    expect(await warnings(plain)).toEqual([]);
    const asking = await client.createSession({
      onPermissionRequest: approveAll,
      enableCitations: true,
      additionalDirectories: [fixture.cwd],
    } as Parameters<CopilotClient["createSession"]>[0]);
    expect(await warnings(asking)).toEqual([
      {
        warningType: "settings_ignored",
        message:
          "session.create: turnloop does not implement the Copilot SDK's settings enableCitations and additionalDirectories and ignores them",
      },
    ]);
    await expect(
      client.createSession({ onPermissionRequest: approveAll, model: 3 as unknown as string }),
    ).rejects.toThrow("session.create: model must be a string, not 3");
  });
});
