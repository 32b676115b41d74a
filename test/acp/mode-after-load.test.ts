import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness } from "./support.js";

/**
 * A mode is chosen per run, as the flags are (README, "Permission modes"): a session loaded again
 * starts in the mode this agent's flags give, never in a more permissive one it was left in.
 */
describe("the mode of a loaded session", () => {
  test("a session left in auto loads in ask under an agent started without flags, and in auto under --allow-all-tools", async () => {
    let harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await harness.client.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    harness.server.enqueue({ text: "Hello." });
    await harness.prompt(sessionId, "hi");

    harness = await harness.restart();
    const answer = await harness.loadSession(sessionId);
    expect(answer.modes?.currentModeId).toBe("ask");
    expect(answer.configOptions?.[0]?.currentValue).toBe("ask");

    harness = await harness.restart({ face: { allowAllTools: true } });
    const permissive = await harness.loadSession(sessionId);
    expect(permissive.modes?.currentModeId).toBe("auto");
    await harness.close();
  });
});
