import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { trustProject } from "../../src/session/config-paths.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { fakeNpx, interactiveTest, printedSessionId } from "./interactive-support.js";

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

/** The screen without the spaces that pad each row. */
function trimmed(screen: string): string {
  return screen
    .split("\n")
    .map((row) => row.trimEnd())
    .join("\n");
}

describe.skipIf(tmuxMissing())("turnloop (interactive): 'always' by command prefix", () => {
  // A trial of session 17's build (round 3, session 18, #10): the question about a command the
  // rules cannot fully read did not say so (-p's and ACP's did).
  interactiveTest(
    "a command that cannot be fully read: the question says why, and 'always' is for that exact command only",
    async ({ fixture }) => {
      fixture.server.enqueue(bash("call_1", 'eval "$STEP" x'), { text: "not run" });
      const terminal = await fixture.openReady([], { columns: 160 });
      terminal.type("run the step");
      const question = trimmed(await terminal.waitFor(/\[n\] no/));
      expect(question).toMatch(/\$ eval "\$STEP" x\n +cannot be fully read: .+/);
      expect(question).toContain('[a] yes, always for bash(eval "$STEP" x) in this session');
      expect(question).not.toContain("[p]");
      terminal.type("n");
      // The call's line says the outcome as `sessions show` does: denied, not failed.
      const answered = trimmed(await terminal.waitFor(/not run/));
      expect(answered).toMatch(/✗ bash eval "\$STEP" x +denied$/m);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "yes-always for npx tape * lets npx tape test/a.js run without asking; rm -rf x still asks; /permissions lists, saves and removes the grant",
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
      const config = join(fixture.repository, ".turnloop", "config.json");
      await mkdir(join(fixture.repository, ".turnloop"));
      await writeFile(
        config,
        JSON.stringify({
          model: "openai-compatible:fake-model",
          permissions: { allow: ["bash(git status)"] },
        }),
      );
      // Its allow rule applies once the project is trusted (project-trust.test.ts).
      await trustProject(fixture.home, fixture.repository);
      const terminal = await fixture.openReady(["--deny-tool", "bash(rm -rf /)"], {
        env,
        columns: 160,
      });
      terminal.type("run the tests");
      const question = await terminal.waitFor(/\[p\] yes, always for bash\(npx tape \*\)/);
      // Each answer names the rule it creates; the other part of the pipe is not covered.
      expect(question).toContain(
        // The exact call's rule escapes its star: it matches that command alone (trial finding 14).
        "[y] yes, once\n" +
          "[a] yes, always for bash(npx tape 'test/\\*.js' | tail -5) in this session\n" +
          "[p] yes, always for bash(npx tape *) in this session (tail -5 still asks)\n" +
          "[n] no\n" +
          "[t] no, and tell the model why",
      );
      terminal.type("p");
      await terminal.waitFor(/first run done/);
      expect(await terminal.screen()).toMatch(/ran npx tape test\/\*\.js/);
      // The answer shows the rule it created, once (a fresh user's trial, item 8).
      expect(
        (await terminal.screen()).match(/always allowed in this session: bash\(npx tape \*\)/g),
      ).toHaveLength(1);

      await terminal.idle();
      terminal.type("run one test");
      const screen = await terminal.waitFor(/second run done/);
      expect(screen).toMatch(/ran npx tape test\/a\.js/);
      expect(screen).not.toMatch(/\[y\] yes/);

      await terminal.idle();
      terminal.type("clean up");
      await terminal.waitFor(/\$ rm -rf x/);
      expect(await terminal.screen()).toContain("[p] yes, always for bash(rm *) in this session");
      terminal.type("n");
      await terminal.waitFor(/not removed/);
      await terminal.idle();

      // /permissions lists the grant and the rules with where each comes from.
      terminal.type("/permissions");
      const listed = await terminal.waitFor(/\/permissions remove N/);
      expect(trimmed(listed)).toContain(
        [
          "/permissions",
          '  session grants (from "always" answers):',
          "    1. allow bash(npx tape *)",
          "  rules from the config files and flags:",
          `    allow bash(git status)  (from ${config})`,
          "    deny bash(rm -rf /)  (from --deny-tool)",
        ].join("\n"),
      );
      // Saved to the project's config on request, beside what the file had.
      await terminal.idle();
      terminal.type("/permissions save");
      await terminal.waitFor(/saved to .*config\.json: allow bash\(npx tape \*\)/);
      expect(JSON.parse(await readFile(config, "utf8"))).toEqual({
        model: "openai-compatible:fake-model",
        permissions: { allow: ["bash(git status)", "bash(npx tape *)"] },
      });
      // Removed, the grant no longer applies: the same command asks again.
      await terminal.idle();
      terminal.type("/permissions remove 1");
      // The rule is still in the project's config, and the answer says so.
      await terminal.waitFor(
        /removed allow bash\(npx tape \*\)[\s\S]*still saved in\s+\S*config\.json/,
      );
      await terminal.idle();
      terminal.type("/permissions");
      await terminal.waitFor(
        /session grants \(from "always" answers\):\s+none[\s\S]*allow bash\(npx tape \*\)\s+\(saved to /,
      );
      fixture.server.enqueue(bash("call_4", "npx tape test/b.js"), { text: "third run done" });
      await terminal.idle();
      terminal.type("run another test");
      await terminal.waitFor(/\$ npx tape test\/b\.js/);
      terminal.type("y");
      await terminal.waitFor(/third run done/);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      const events = await fixture.events(printedSessionId(await terminal.screen(500)));
      const permissions = events
        .filter((event) => event.type === "permission.completed")
        .map(({ data }) => [data.toolCallId, data.decision, data.scope, data.rule]);
      expect(permissions).toEqual([
        ["call_1", "allowed", "session", "bash(npx tape *)"],
        ["call_3", "denied", "once", undefined],
        ["call_4", "allowed", "once", undefined],
      ]);
      // The removal is in the log, so a resumed session folds the grant away too (trial 24, #7:
      // it came back on the next --continue).
      const changes = events.filter((event) => event.type === "session.grants_changed");
      expect(changes.map(({ data }) => data)).toEqual([{ allow: [], deny: [] }]);
    },
    60_000,
  );
});
