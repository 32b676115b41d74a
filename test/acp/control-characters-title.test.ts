import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness } from "./support.js";

// A command holding a `\r` (trial r3s47 F1, and its re-check on ACP): the title and the option
// names an editor draws show the control character as its code point, so a tool card or a
// permission dialog cannot show `echo hello` for `touch …; # \r echo hello`; rawInput stays exact.

const COMMAND = "touch PWNED; # \r echo hello";
const SHOWN = "touch PWNED; # ⟨U+000D⟩ echo hello";

describe("a command's control characters in what an editor draws", () => {
  test("the tool_call's title and the permission request's title and options show them; rawInput is exact", async () => {
    const harness = await AcpHarness.start();
    try {
      harness.server.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: COMMAND }) },
          ],
        },
        { text: "done" },
      );
      const sessionId = await harness.newSession();
      await harness.prompt(sessionId, "go");
      const request = harness.behaviour.calls.find(
        (call) => call.method === "session/request_permission",
      )?.params as acp.RequestPermissionRequest | undefined;
      expect({
        title: request?.toolCall.title,
        rawInput: request?.toolCall.rawInput,
        options: request?.options.map((option) => option.name),
      }).toEqual({
        title: `Run ${SHOWN}`,
        rawInput: { command: COMMAND },
        options: [
          "Allow",
          `Always allow bash(${SHOWN})`,
          "Always allow bash(touch PWNED *)",
          "Reject",
          `Always reject bash(${SHOWN})`,
        ],
      });
      // Announced by the tool's name as its arguments stream, then titled by them.
      const titled = harness
        .updates(sessionId)
        .flatMap((update) =>
          update.sessionUpdate === "tool_call_update" && update.title != null
            ? [[update.title, update.rawInput]]
            : [],
        );
      expect(titled).toEqual([[`Run ${SHOWN}`, { command: COMMAND }]]);
    } finally {
      await harness.close();
    }
  });
});
