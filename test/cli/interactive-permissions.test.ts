import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import {
  INPUT_BOX,
  type InteractiveFixture,
  interactiveTest,
  printedSessionId,
} from "./interactive-support.js";

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

/** A folder with an `npx` that prints its arguments: the test runs no package from a registry. */
async function fakeNpx(fixture: InteractiveFixture): Promise<NodeJS.ProcessEnv> {
  const bin = join(fixture.home, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "npx"), '#!/bin/sh\necho "ran npx $*"\n');
  await chmod(join(bin, "npx"), 0o755);
  return { PATH: `${bin}:${process.env.PATH ?? ""}` };
}

describe.skipIf(tmuxMissing())("turnloop (interactive): 'always' by command prefix", () => {
  interactiveTest(
    "yes-always for npx tape * lets npx tape test/a.js run without asking; rm -rf x still asks",
    async ({ fixture }) => {
      const env = await fakeNpx(fixture);
      fixture.server.enqueue(
        bash("call_1", "npx tape 'test/*.js' | tail -5"),
        { text: "first run done" },
        bash("call_2", "npx tape test/a.js"),
        { text: "second run done" },
        bash("call_3", "rm -rf x"),
        { text: "not removed" },
      );
      const terminal = fixture.open([], { env });
      await terminal.waitFor(INPUT_BOX);
      terminal.type("run the tests");
      const question = await terminal.waitFor(/\[p\] yes, and always for bash\(npx tape \*\)/);
      // Each answer names the rule it creates; the other part of the pipe is not covered.
      expect(question).toContain(
        "[a] yes, and always for bash(npx tape 'test/*.js' | tail -5) in this session\n" +
          "[p] yes, and always for bash(npx tape *) in this session (tail -5 still asks)",
      );
      terminal.write("p");
      await terminal.waitFor(/first run done/);
      expect(terminal.screen()).toMatch(/ran npx tape test\/\*\.js/);

      await terminal.idle();
      terminal.type("run one test");
      const screen = await terminal.waitFor(/second run done/);
      expect(screen).toMatch(/ran npx tape test\/a\.js/);
      expect(screen).not.toMatch(/\[y\] yes/);

      await terminal.idle();
      terminal.type("clean up");
      await terminal.waitFor(/\$ rm -rf x/);
      expect(terminal.screen()).toContain("[p] yes, and always for bash(rm *) in this session");
      terminal.write("n");
      await terminal.waitFor(/not removed/);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      const events = await fixture.events(printedSessionId(terminal.screen(500)));
      const permissions = events
        .filter((event) => event.type === "permission.completed")
        .map(({ data }) => [data.toolCallId, data.decision, data.scope, data.rule]);
      expect(permissions).toEqual([
        ["call_1", "allowed", "session", "bash(npx tape *)"],
        ["call_3", "denied", "once", undefined],
      ]);
    },
  );
});
