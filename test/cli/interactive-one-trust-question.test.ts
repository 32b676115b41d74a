import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { INPUT_BOX, interactiveTest } from "./interactive-support.js";

/** The screen's lines, trailing spaces cut, with `repository` as `/repo` and session ids as `<id>`. */
function shown(screen: string, repository: string): string[] {
  return screen
    .replaceAll(repository, "/repo")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .split("\n")
    .map((line) => line.trimEnd());
}

describe.skipIf(tmuxMissing())("turnloop (interactive): one trust question per run", () => {
  interactiveTest(
    "Esc at the line question is a no: one short line, no second question on the screen nor at /new",
    async ({ fixture }) => {
      const { repository } = fixture;
      await mkdir(join(repository, ".turnloop"));
      await writeFile(
        join(repository, ".turnloop", "config.json"),
        JSON.stringify({ permissions: { allow: ["bash(npm test)"] } }),
      );
      await writeFile(
        join(repository, ".mcp.json"),
        JSON.stringify({ mcpServers: { proj: { command: "node", args: ["server.mjs"] } } }),
      );
      const terminal = fixture.open([], { columns: 80 });
      await terminal.waitFor(/\[y\/N\]$/);
      terminal.key("Escape");
      await terminal.waitFor(INPUT_BOX);
      const rule = "─".repeat(80);
      const top = [
        "",
        "/repo/.turnloop/config.json loosens permissions, sends data elsewhere or changes what a run may spend:",
        "  permissions.allow: bash(npm test) (run without asking)",
        "/repo/.mcp.json starts MCP servers, programs from this project:",
        "  proj: node server.mjs",
        "This project is not trusted yet.",
        "Trust this project (its whole config and its MCP servers) from now on? [y/N]",
        "turnloop: warning: not trusted: not applying permissions.allow this run;",
        "`turnloop mcp trust` in the project trusts it later",
        "turnloop in /repo",
        // Lines of the screen, wrapped for the real (longer) repository path.
        "model openai-compatible:fake-model · session",
        "<id> · /help lists the commands",
        "turnloop: warning: not starting the MCP servers of",
        "/repo/.mcp.json (proj): this project is not trusted; run",
        "`turnloop mcp trust` in it to allow them",
      ];
      const status =
        "Enter send · Ctrl-J newline · / comma...  fake-model · ask · ctx 0% · 0 in 0 out";
      await terminal.waitForScreen([...top, rule, "", rule, status], (screen) =>
        shown(screen, repository),
      );
      terminal.type("/new");
      await terminal.waitFor(/new session/);
      expect(shown(await terminal.idle(), repository).join("\n")).not.toMatch(
        /wants to start MCP servers|Trust this project from now on/,
      );
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
