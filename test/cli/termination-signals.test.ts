import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { UNTIL_TOOL_START } from "../support/event-sequences.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { isAlive } from "../support/processes.js";

test.override({ git: true });

// A supervisor's stop (`timeout`, systemd, an editor) or a closed terminal while -p runs a
// command: the command must not outlive turnloop, and the log gets its end, as on Ctrl-C.
describe("-p stopped by SIGTERM or SIGHUP while a command runs", () => {
  test.for([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "%s: the command is killed, the log ends with the abort, exit %i with the session id",
    async ([signal, code], { cli, model, repository, loggedEvents }) => {
      // The command's pid (the sleep's, after exec) is the gate for the signal.
      const command =
        "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";
      model.enqueue({
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
      });
      const result = await cli(["-p", "wait", "--allow-all-tools"], {
        onStart: (child) =>
          whenFileExists(join(repository, "command.pid"), child, () => child.kill(signal)),
      });
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(
        // The stop is named as the log's abort names it (Ctrl-C's line says only "cancelled").
        new RegExp(
          `⊘ bash .* interrupted \\([\\d.]+ (?:ms|s|min)\\): cancelled by ${signal}; its process group was killed\\ncancelled by ${signal}\\n.* · session [0-9a-f-]{36}\\n$`,
        ),
      );
      const pid = Number(readFileSync(join(repository, "command.pid"), "utf8"));
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
      const events = await loggedEvents(printedSessionId(result.stderr));
      expect(events.map((event) => event.type)).toEqual([
        ...UNTIL_TOOL_START,
        "tool.execution_complete",
        "assistant.turn_end",
        "abort",
      ]);
      expect(events.find((event) => event.type === "tool.execution_complete")?.data).toMatchObject({
        toolCallId: "call_1",
        success: false,
      });
      expect(events.at(-1)?.data).toEqual({ reason: `cancelled by ${signal}` });
    },
  );
});

describe("-p --quiet stopped by SIGTERM", () => {
  test("its one stderr line names the signal and the session to resume", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const command =
      "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";
    model.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    const result = await cli(["-p", "wait", "--allow-all-tools", "--quiet"], {
      onStart: (child) =>
        whenFileExists(join(repository, "command.pid"), child, () => child.kill("SIGTERM")),
    });
    expect(result.code).toBe(143);
    expect(result.stdout).toBe("");
    const id = /--resume ([0-9a-f-]{36})/.exec(result.stderr)?.[1] ?? "";
    expect(result.stderr).toBe(`turnloop: cancelled by SIGTERM; resume with --resume ${id}\n`);
    expect((await loggedEvents(id)).at(-1)?.data).toEqual({ reason: "cancelled by SIGTERM" });
  });
});

// Trial 47 F6: a SIGTERM in -p's first moments (before its prompt's own stops listen) ended it
// with Node's silent exit: nothing on stderr, even with --output-format json. Gates: a preload
// marks when the first SIGTERM listener is added (src/cli/main.ts's, as it starts), and stdin is
// a pipe that another process holds open and never writes, which -p waits for before its prompt.
describe("-p stopped by SIGTERM before its prompt was sent", () => {
  test("one stderr line names the signal; exit 143; nothing was sent", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const marker = join(repository, "listening");
    const preload = join(home, "mark-sigterm-listener.cjs");
    await writeFile(
      preload,
      [
        "const on = process.on;",
        "process.on = function (name, ...rest) {",
        "  const result = on.call(this, name, ...rest);",
        `  if (name === "SIGTERM") require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");`,
        "  return result;",
        "};\n",
      ].join("\n"),
    );
    const holder = join(repository, "holder.pid");
    try {
      const result = await cli(["-p", "hello", "--output-format", "json"], {
        env: { NODE_OPTIONS: `--require=${preload}` },
        prefix: `exec 0< <(echo $BASHPID > ${holder}; exec sleep 60 >/dev/null 2>&1)`,
        onStart: (child) => whenFileExists(marker, child, () => child.kill("SIGTERM")),
      });
      expect(result).toEqual({
        code: 143,
        signal: null,
        stdout: "",
        stderr: "turnloop: stopped by SIGTERM before any prompt was sent\n",
      });
      expect(model.requests).toEqual([]);
    } finally {
      try {
        process.kill(Number(readFileSync(holder, "utf8")), "SIGKILL");
      } catch {}
    }
  });
});
