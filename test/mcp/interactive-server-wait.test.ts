import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { interactiveTest } from "../cli/interactive-support.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry } from "../support/mcp/servers.js";

// Trial 38 F2 gave a call of a server still starting its `tool.execution_progress` line; the
// interactive screen's (tool-call-view.ts: the wait's words and the seconds so far) had no test.
// Ordered by the screen and the server's start gate, never by time.

describe.skipIf(tmuxMissing())(
  "turnloop (interactive): a call that waits for its MCP server",
  () => {
    interactiveTest(
      "the call's line says it waits for the server, with the seconds, then shows its result",
      async ({ fixture }) => {
        const gate = join(fixture.repository, "gate");
        const config = join(fixture.repository, "servers.json");
        await writeFile(
          config,
          JSON.stringify({ mcpServers: { slow: stdioEntry("--start-gate", gate) } }),
        );
        const terminal = await fixture.openReady(["--allow-all-tools", "--mcp-config", config], {
          env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "0" },
        });
        fixture.server.enqueue(
          { toolCalls: [{ id: "call_1", name: "slow__echo", arguments: '{"text":"y"}' }] },
          { text: "Echoed." },
        );
        terminal.type("echo y");
        // Held at the server's start gate: the line says what the call waits on, and for how long.
        const waiting = await terminal.waitFor(
          /waiting for MCP server slow to start \(at most [\d.]+ s more\) · [\d.]+ (?:ms|s|min)/,
        );
        expect(waiting).not.toMatch(/Echoed\./);
        await writeFile(gate, "");
        await terminal.waitFor(/Echoed\./);
        const screen = (await terminal.idle()).replace(/\s+/g, " ");
        expect(screen).toContain("✓ slow__echo");
        expect(screen).not.toContain("waiting for MCP server slow");
        expect(fixture.lastMessage(1)).toBe("echo: y");
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
      },
    );
  },
);
