import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { requireSandbox } from "../support/sandbox.js";
import { type Fixture, startFixture } from "./support.js";

/**
 * An app chooses the sandbox by starting the server with `--sandbox` (README, "Sandbox"): the
 * session's commands then run in bubblewrap. The folder outside is under /var/tmp: the
 * sandbox's /tmp is its own.
 */

const sandboxWorks = await requireSandbox();
let fixture: Fixture;
let outside: string;

beforeAll(async () => {
  fixture = await startFixture();
  outside = await mkdtemp(join("/var/tmp", "turnloop-sdk-sandbox-outside-"));
});
afterAll(async () => {
  await fixture.close();
  await rm(outside, { recursive: true, force: true });
});

test.runIf(sandboxWorks)(
  "cliArgs --sandbox workspace-write: a command cannot write outside",
  async () => {
    const client = fixture.client({
      cliArgs: ["--sandbox", "workspace-write", "--allow-all-tools"],
    });
    const session = await client.createSession();
    const results: unknown[] = [];
    session.on((event: SessionEvent) => {
      if (event.type === "tool.execution_complete") {
        results.push(event.data.result);
      }
    });
    const escaped = join(outside, "escaped.txt");
    fixture.model.enqueue(
      {
        toolCalls: [
          {
            id: "call_1",
            name: "bash",
            arguments: JSON.stringify({ command: `echo x > ${escaped}` }),
          },
        ],
      },
      { text: "Done." },
    );
    const reply = await session.sendAndWait({ prompt: "write it" });
    expect(reply?.data.content).toBe("Done.");
    expect(results).toEqual([
      {
        content:
          `bash: line 1: ${escaped}: Read-only file system\n<exited with exit code 1>\n` +
          "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
          "(Read-only file system). It was not run outside the sandbox: that needs the user's " +
          "agreement, which was not given.",
      },
    ]);
    expect(existsSync(escaped)).toBe(false);
  },
);
