import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { interactiveTest } from "../cli/interactive-support.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { startHttpServer, stdioEntry } from "../support/mcp/servers.js";

// The trial of round 3, session 22 (08-mcp-interactive.sh): the interactive screen said an MCP
// server's crash twice, in two wordings (the session's log line and the event's note), and
// `/mcp` listed an HTTP server that had been stopped as `connected`.

function call(name: string, args: object = {}) {
  return { toolCalls: [{ id: "call_1", name, arguments: JSON.stringify(args) }] };
}

/** How often `text` is on `screen`, with the screen's wrapping undone. */
function count(screen: string, text: string): number {
  return screen.replace(/\s+/g, " ").split(text).length - 1;
}

describe.skipIf(tmuxMissing())("turnloop (interactive): MCP server notices", () => {
  interactiveTest(
    "a server that exits during a call is said once, in every face's words, and so is the call's result",
    async ({ fixture }) => {
      const config = join(fixture.repository, "servers.json");
      await writeFile(config, JSON.stringify({ mcpServers: { st: stdioEntry() } }));
      const terminal = await fixture.openReady(["--allow-all-tools", "--mcp-config", config]);
      fixture.server.enqueue(call("st__crash"), { text: "It crashed." });
      terminal.type("crash it");
      await terminal.waitFor(/It crashed\./);
      const screen = await terminal.idle();
      const notice =
        "MCP server st failed: the server exited with exit code 3; its tools are not available";
      expect(count(screen, notice)).toBe(1);
      expect(count(screen, "MCP server st")).toBe(2); // the notice and the call's line
      expect(screen).not.toMatch(/turnloop: MCP server/);
      // The call's line says what the model read: the server stopped, and why.
      expect(screen.replace(/\s+/g, " ")).toContain(
        "✗ st__crash failed MCP server st stopped: the server exited with exit code 3; its tools",
      );
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "/mcp after an HTTP server stopped lists it failed, with why, before any call found out",
    async ({ fixture }) => {
      const http = await startHttpServer();
      onTestFinished(() => http.stop());
      const config = join(fixture.repository, "servers.json");
      await writeFile(
        config,
        JSON.stringify({ mcpServers: { web: { type: "http", url: http.url } } }),
      );
      const terminal = await fixture.openReady(["--mcp-config", config]);
      // A prompt waits for the server's start.
      fixture.server.enqueue({ text: "Ready." });
      terminal.type("hi");
      await terminal.waitFor(/Ready\./);
      await terminal.idle();
      terminal.type("/mcp");
      await terminal.waitFor(/web \(http\): connected, \d+ tools/);
      await http.stop();
      terminal.type("/mcp");
      const screen = await terminal.waitFor(/web \(http\): failed, 0 tools/);
      const flat = screen.replace(/\s+/g, " ");
      expect(flat).toContain(`web (http): failed, 0 tools — nothing is listening at ${http.url}`);
      expect(count(screen, `MCP server web failed: nothing is listening at ${http.url}`)).toBe(1);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
