import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry, TEST_SERVER, waitForLog } from "../support/mcp/servers.js";
import { INPUT_BOX, type InteractiveFixture, interactiveTest } from "./interactive-support.js";

/** A project `.mcp.json` with the test MCP server as `fs`, logging to the returned file. */
async function projectServer(fixture: InteractiveFixture): Promise<string> {
  const log = join(fixture.home, "fs-server.log");
  await writeFile(
    join(fixture.repository, ".mcp.json"),
    JSON.stringify({ mcpServers: { fs: stdioEntry("--log", log) } }),
  );
  return log;
}

describe.skipIf(tmuxMissing())("turnloop (interactive): project MCP trust", () => {
  interactiveTest(
    "an untrusted .mcp.json is asked about at start; yes starts its server and is remembered",
    async ({ fixture }) => {
      const log = await projectServer(fixture);
      const terminal = fixture.open();
      const question = await terminal.waitFor(/\[y\] yes +\[n\] no/);
      expect(question).toContain(
        `${join(fixture.repository, ".mcp.json")} wants to start MCP servers:`,
      );
      // Each server with its command line (the trial of round 3 session 22: names only).
      // Compared without spaces: the screen wraps the long line.
      expect(question.replace(/\s+/g, "")).toContain(`fs:${process.execPath}${TEST_SERVER}--log`);
      expect(question).toContain("They run programs from this project.");
      expect(question).toContain("Trust this project from now on?");
      expect(question).toContain(
        "(One trust: its MCP servers, and its whole .turnloop/config.json applies.)",
      );
      terminal.type("y");
      await waitForLog(log, (entries) => entries.length > 0);
      await terminal.waitFor(INPUT_BOX);
      // A prompt waits for the servers' start: the model is offered the project server's tools.
      fixture.server.enqueue({ text: "Tools seen." });
      terminal.type("what tools do you have?");
      await terminal.waitFor(/Tools seen\./);
      const body = fixture.server.requests[0]?.body as {
        tools?: Array<{ function: { name: string } }>;
      };
      expect(body.tools?.map((tool) => tool.function.name)).toContain("fs__echo");
      await terminal.idle();
      terminal.type("/mcp");
      await terminal.waitFor(/fs \(stdio\): connected, \d+ tools?/);
      expect(await terminal.screen()).not.toMatch(/not trusted|untrusted/);
      const trusted = JSON.parse(
        await readFile(join(fixture.home, "trusted-projects.json"), "utf8"),
      ) as { projects: Record<string, unknown> };
      expect(Object.keys(trusted.projects)).toEqual([fixture.repository]);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "no leaves the server off; /mcp lists it as untrusted with how to trust it",
    async ({ fixture }) => {
      const log = await projectServer(fixture);
      const terminal = fixture.open();
      await terminal.waitFor(/wants to start MCP servers:/);
      terminal.type("n");
      await terminal.waitFor(INPUT_BOX);
      terminal.type("/mcp");
      const screen = await terminal.waitFor(/reopen the session/);
      // Compared with the screen's wrapping undone.
      expect(screen.replace(/\s+/g, " ")).toContain(
        `fs: untrusted (from ${join(fixture.repository, ".mcp.json")}), not started ` +
          "to allow this project's servers: run turnloop mcp trust in this folder, then /new or reopen the session",
      );
      expect(screen).not.toMatch(/no MCP servers/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      await expect(readFile(log, "utf8")).rejects.toThrow(/ENOENT/);
    },
  );
});
