import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness } from "../acp/support.js";

/**
 * The "always for this prefix" choice end to end through an ACP client (session 18's brief, from the session-17 trial,
 * #4): a prefix for make keeps its target (`make test *`), and `make` alone gets none (`make *`
 * would run any recipe), so a later `make evil`, whose recipe creates a harmless marker, is asked
 * about again (and refused here) rather than run.
 */
const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

describe("the prefix choice for make", () => {
  test("granting make's prefix for one target does not run another target's recipe", async () => {
    const harness = await AcpHarness.start();
    await writeFile(join(harness.cwd, "Makefile"), "test:\n\techo ok\nevil:\n\ttouch marker\n");
    const asked: acp.RequestPermissionRequest[] = [];
    // The user takes the widest "always" offered for the first two calls and rejects the rest.
    harness.behaviour.answerPermission = async (params) => {
      asked.push(params);
      const widest = params.options.filter((option) => option.kind === "allow_always").at(-1);
      const optionId = asked.length <= 2 ? (widest?.optionId ?? "allow_once") : "reject_once";
      return { outcome: { outcome: "selected", optionId } };
    };
    harness.server.enqueue(
      bash("call_M1", "make"),
      bash("call_M2", "make test"),
      bash("call_M3", "make test"),
      bash("call_M4", "make evil"),
      { text: "made" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "make")).toEqual({ stopReason: "end_turn" });
    // `make` alone is granted exactly, `make test` by its prefix; `make evil` is asked again.
    expect(asked.map((request) => request.toolCall.toolCallId)).toEqual([
      "call_M1",
      "call_M2",
      "call_M4",
    ]);
    expect(asked.map((request) => request.options.at(-3)?.name)).toEqual([
      "Always allow bash(make)",
      "Always allow bash(make test *)",
      "Always allow bash(make evil *)",
    ]);
    expect(existsSync(join(harness.cwd, "marker"))).toBe(false);
  });
});
