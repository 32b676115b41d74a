import type { ChildProcess } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// Trial 24, finding 2: a prompt whose process was killed while the model replied kept an open
// turn for good: `show` said "[no stop recorded]", the exports called the session running, and
// the model was sent the unanswered prompt with nothing to say it got no answer. Reopening the
// session closes the turn as interrupted, says so once, and every reader shows it.

test("a turn killed before its reply is closed as interrupted at resume, and every reader says so", async ({
  cli,
  model,
  home,
}) => {
  let child: ChildProcess | undefined;
  let killed = false;
  model.setResponder(() => {
    if (!killed) {
      // The request is sent, so its turn_start is in the log: the process dies mid-turn.
      killed = true;
      child?.kill("SIGKILL");
      return { raw: [{ hold: true }] };
    }
    return { text: "answered" };
  });
  const crashed = await cli(["-p", "stream slowly"], {
    onStart: (started) => {
      child = started;
    },
  });
  expect(crashed.signal).toBe("SIGKILL");
  const [sessionId = ""] = await readdir(join(home, "session-state"));

  const resumed = await cli(["-p", "after crash", "--resume", sessionId]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    "turnloop: repaired the session log: closed 1 turn left open when its process ended, as interrupted\n",
  );
  const messages = chatMessages(model, -1).filter((message) => message.role !== "system");
  expect(messages).toEqual([
    { role: "user", content: "stream slowly" },
    {
      role: "user",
      content:
        "[Your reply to the previous message was interrupted before any of it was recorded: the process running it ended. That message got no answer.]\n\nafter crash",
    },
  ]);

  const again = await cli(["-p", "once more", "--resume", sessionId]);
  expect(again.stderr).not.toContain("repaired");

  const shown = await cli(["sessions", "show", sessionId]);
  const lines = shown.stdout.split("\n");
  expect(lines.slice(1, 4)).toEqual(["", "> stream slowly", "[stop: interrupted]"]);
  expect(shown.stdout).not.toContain("no stop recorded");

  const exported = JSON.parse(
    (await cli(["sessions", "export", sessionId, "--format", "json"])).stdout,
  );
  expect(exported.summary.running).toBe(false);
  expect(exported.turns.map((turn: { status: string }) => turn.status)).toEqual([
    "interrupted",
    "completed",
    "completed",
  ]);
});
