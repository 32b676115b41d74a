import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry } from "../support/mcp/servers.js";
import { INPUT_BOX, interactiveTest, pastSession } from "./interactive-support.js";

describe.skipIf(tmuxMissing())("turnloop (interactive): a failed MCP server after /resume", () => {
  interactiveTest(
    "a server whose command does not exist is told once, after the resumed history and the command's answer",
    async ({ fixture }) => {
      const earlier = await pastSession(fixture, "hello", "Hello there.");
      await writeFile(
        join(fixture.home, "mcp.json"),
        // A server that starts beside it, as in the trial that lost the line 8 times in 9.
        JSON.stringify({
          mcpServers: { fs: stdioEntry(), missing: { command: "no-such-mcp-binary" } },
        }),
      );
      const failed =
        "MCP server missing failed: command not found: no-such-mcp-binary; its tools are not available";
      const terminal = fixture.open([], { columns: 100 });
      await terminal.waitFor(new RegExp(`${failed}\\n─`));
      await terminal.waitFor(INPUT_BOX);
      terminal.type(`/resume ${earlier.slice(0, 8)}`);
      const rule = "─".repeat(100);
      const status =
        "Enter send · Ctrl-J newline · / commands · @ file · ! sh...  fake-model · ask · ctx 0% · 10 in 5 out";
      const screen = await terminal.waitForScreen([
        `turnloop in ${fixture.repository}`,
        `model openai-compatible:fake-model · session ${earlier} · /help lists the`,
        "commands",
        "",
        "› hello",
        "",
        "Hello there.",
        "",
        `/resume ${earlier.slice(0, 8)}`,
        `  resumed session ${earlier}`,
        failed,
        rule,
        "",
        rule,
        status,
      ]);
      expect(screen.match(/MCP server missing failed/g)).toHaveLength(1);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
