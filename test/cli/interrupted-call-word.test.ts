import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { withoutToolTimes } from "../support/tool-times.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

// A trial: a command cut by a cancel read `interrupted` on the terminal and `✗ cancelled` in
// `sessions show` (and `cancelled` in the export): the result's error code, not the session
// model's state. Every face now says the fold's word for it, `interrupted`.

describe.skipIf(tmuxMissing())("a tool call cut by a cancel", () => {
  interactiveTest(
    "reads `interrupted` on -p, sessions show, the export and the terminal",
    async ({ fixture }) => {
      const command = "touch started && sleep 30";
      fixture.server.enqueue({
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
      });
      const { runCli } = await import("../support/cli.js");
      const run = await runCli(["-p", "run it", "--allow-all-tools"], {
        cwd: fixture.repository,
        env: fixture.environment(),
        onStart: (child) =>
          whenFileExists(join(fixture.repository, "started"), child, () => child.kill("SIGINT")),
      });
      expect(run.code).toBe(130);
      const sessionId = printedSessionId(run.stderr);
      expect(run.stderr).toMatch(
        /^⊘ bash touch started && sleep 30 interrupted \([\d.]+ (?:ms|s|min)\): cancelled by the user; its process group was killed$/m,
      );
      const cli = (args: string[]) =>
        runCli(args, { cwd: fixture.repository, env: fixture.environment() });
      const shown = await cli(["sessions", "show", sessionId]);
      expect(withoutToolTimes(shown.stdout)).toContain(
        `→ bash(command: "${command}") ⊘ interrupted\n`,
      );
      expect(shown.stdout).not.toMatch(/cancelled\n {4}/);
      const exported = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
      expect(exported.stdout).toContain("#### `bash` · interrupted ·");
      const terminal = await fixture.openReady(["--resume", sessionId], { columns: 100 });
      const screen = await terminal.waitFor(/⊘ bash/);
      expect(screen).toMatch(/⊘ bash touch started && sleep 30 +interrupted/);
    },
  );
});
