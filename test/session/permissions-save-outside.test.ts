import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  editCall as edit,
  editThroughPrompt,
  interactiveTest,
} from "../cli/interactive-support.js";
import { tmuxMissing } from "../support/interactive-terminal.js";

// Round 3, session 22: an "always" answer for a file outside the session's folder is a grant of
// its absolute path, and `/permissions save` wrote it so into the project's config file: a path
// of this machine, for a file the user knows as `docs/plan.md` or `~/notes/todo.md`. It is now
// saved relative to the project's folder when in it, under `~` when in the home folder (absolute
// only otherwise), and read back as the same file.

describe.skipIf(tmuxMissing())("/permissions save of grants outside the session's folder", () => {
  interactiveTest(
    "a file of the project is saved relative to the project, one in the home folder under ~",
    async ({ fixture }) => {
      const source = join(fixture.repository, "src");
      await mkdir(source);
      await mkdir(join(fixture.repository, "docs"));
      await mkdir(join(fixture.home, "notes"));
      const plan = join(fixture.repository, "docs", "plan.md");
      const todo = join(fixture.home, "notes", "todo.md");
      await writeFile(plan, "draft\n");
      await writeFile(todo, "draft\n");
      fixture.server.enqueue(
        edit("call_1", "../docs/plan.md", "draft", "second"),
        edit("call_2", todo, "draft", "second"),
        { text: "edited" },
      );
      const terminal = await fixture.openReady(["--cwd", source], { columns: 200 });
      terminal.type("edit both");
      await terminal.waitFor(/\[a\] yes, always for edit\(\S*docs\/plan\.md\) in this session/);
      terminal.type("a");
      await terminal.waitFor(/\[a\] yes, always for edit\(\S*notes\/todo\.md\) in this session/);
      terminal.type("a");
      await terminal.waitFor(/edited/);
      await terminal.idle();
      terminal.type("/permissions save");
      const config = join(fixture.repository, ".turnloop", "config.json");
      await terminal.waitFor(
        /saved to \S*config\.json: allow edit\(docs\/plan\.md\), edit\(~\/notes\/todo\.md\)/,
      );
      expect(JSON.parse(await readFile(config, "utf8"))).toEqual({
        permissions: { allow: ["edit(docs/plan.md)", "edit(~/notes/todo.md)"] },
      });
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);

      // Read back: runs from the root apply both saved rules without asking.
      const edited = (path: string, from: string, to: string) =>
        `File ${path} updated with changes.\n\n@@ -1,1 +1,1 @@\n-${from}\n+${to}`;
      expect([
        await editThroughPrompt(
          fixture,
          fixture.repository,
          edit("c3", "docs/plan.md", "second", "third"),
        ),
        await editThroughPrompt(fixture, fixture.repository, edit("c4", todo, "second", "third")),
      ]).toEqual([edited(plan, "second", "third"), edited(todo, "second", "third")]);
    },
    60_000,
  );
});
