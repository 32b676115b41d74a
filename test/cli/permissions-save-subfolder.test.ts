import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { editCall as edit, editThroughPrompt, interactiveTest } from "./interactive-support.js";

// Round 3, session 21: `/permissions save` from a subfolder wrote the session's grant as the
// session had it, relative to the subfolder (`edit(notes.md)`), into the repository root's
// `.turnloop/config.json`, whose relative paths are read against the root: the saved rule named
// another file. It now writes the pattern relative to the file's own folder (`edit(src/notes.md)`),
// and a run from the root and one from the subfolder both apply it.

describe.skipIf(tmuxMissing())("/permissions save from a subfolder", () => {
  interactiveTest(
    "writes the grant relative to the project's folder; runs from the root and from the subfolder apply it",
    async ({ fixture }) => {
      const source = join(fixture.repository, "src");
      await mkdir(source);
      const notes = join(source, "notes.md");
      await writeFile(notes, "draft\n");
      fixture.server.enqueue(edit("call_1", "notes.md", "draft", "second"), { text: "edited" });
      const terminal = await fixture.openReady(["--cwd", source], { columns: 160 });
      terminal.type("edit the notes");
      await terminal.waitFor(/\[a\] yes, always for edit\(notes\.md\) in this session/);
      terminal.type("a");
      await terminal.waitFor(/edited/);
      await terminal.idle();
      terminal.type("/permissions save");
      const config = join(fixture.repository, ".turnloop", "config.json");
      await terminal.waitFor(/saved to \S*config\.json: allow edit\(src\/notes\.md\)/);
      expect(JSON.parse(await readFile(config, "utf8"))).toEqual({
        permissions: { allow: ["edit(src/notes.md)"] },
      });
      await terminal.idle();
      terminal.type("/permissions");
      await terminal.waitFor(/allow edit\(src\/notes\.md\)\s+\(saved to /);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);

      const fromRoot = await editThroughPrompt(
        fixture,
        fixture.repository,
        edit("call_2", "src/notes.md", "second", "third"),
      );
      const fromSource = await editThroughPrompt(
        fixture,
        source,
        edit("call_3", "notes.md", "third", "fourth"),
      );
      const edited = (from: string, to: string) =>
        `File ${notes} updated with changes.\n\n@@ -1,1 +1,1 @@\n-${from}\n+${to}`;
      expect([fromRoot, fromSource]).toEqual([
        edited("second", "third"),
        edited("third", "fourth"),
      ]);
      expect(await readFile(notes, "utf8")).toBe("fourth\n");
    },
    60_000,
  );
});
