import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { requireSandbox } from "../support/sandbox.js";
import { exitWithCtrlD, interactiveTest } from "./interactive-support.js";

// Trial of round 3 session 36 (P1-1): a sandboxed command that exited 0 although the sandbox
// refused a write showed `✓` and its last lines, the note that says so cut at the terminal's
// edge. The note is drawn whole now, wrapped, under the command's last lines.

const sandboxWorks = await requireSandbox();

describe.runIf(sandboxWorks && !tmuxMissing())(
  "turnloop (interactive): a command that exited 0 with a write refused",
  () => {
    interactiveTest("the note is drawn whole under the ✓ line", async ({ fixture }) => {
      const command = "echo h > .git/hooks/post-checkout; echo done";
      fixture.server.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "ran it" },
      );
      const terminal = await fixture.openReady(
        ["--sandbox", "workspace-write", "--allow-all-tools"],
        { columns: 100, rows: 40 },
      );
      terminal.type("run it");
      const screen = await terminal.waitFor(/ran it/);
      const rows = screen.split("\n").map((row) => row.trim());
      const start = rows.findIndex((row) => row.startsWith("✓ bash echo h > .git/hooks"));
      const end = rows.findIndex((row, index) => index > start && row.startsWith("ran it"));
      const under = rows.slice(start + 1, end).filter((row) => row !== "");
      expect(under[0]).toBe("bash: line 1: .git/hooks/post-checkout: Read-only file system");
      expect(under[1]).toBe("done");
      expect(under.slice(2).join(" ")).toBe(
        "Note: the command exited 0, but a write it tried was refused, so that change is " +
          "missing: the sandbox keeps .git/hooks read-only whatever the settings: git runs the " +
          "hooks there later, outside the sandbox (Read-only file system). To make it, run a " +
          "command that makes only that change and fails when it cannot (for git's config, " +
          "`git config <key> <value>`; `git branch --set-upstream-to` exits 0 too): when the " +
          "sandbox stops it, the user is asked whether to run it outside the sandbox.",
      );
      await exitWithCtrlD(terminal);
    });
  },
);
