import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Session 26's trial (finding 13): importing a `sessions export --format json` file said only
// "the file has no readable session.start event: nothing to import". An export made for reading
// (html, markdown, json) is named as such, with the format import takes.

const TAKES =
  "import takes a session's log, as `turnloop sessions export <id> --format jsonl` writes it";

test("importing an html, markdown or json export names its format and the one import takes", async ({
  cli,
  model,
  repository,
}) => {
  model.enqueue({ text: "ok" });
  const prompt = await cli(["-p", "hi"]);
  expect(prompt.code).toBe(0);
  const sessionId = printedSessionId(prompt.stderr);
  for (const format of ["html", "markdown", "json"]) {
    const out = join(repository, `export.${format}`);
    const exported = await cli(["sessions", "export", sessionId, "--format", format, "--out", out]);
    expect(exported.code).toBe(0);
    const imported = await cli(["sessions", "import", out]);
    expect({ code: imported.code, stdout: imported.stdout, stderr: imported.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `turnloop: the file is a \`sessions export --format ${format}\` export, for reading, not a session's log: nothing to import (${TAKES})\n`,
    });
  }
  const other = join(repository, "notes.txt");
  await writeFile(other, "just some notes\n");
  const refused = await cli(["sessions", "import", other]);
  expect({ code: refused.code, stderr: refused.stderr }).toEqual({
    code: 1,
    stderr: `turnloop: the file has no readable session.start event: nothing to import (${TAKES})\n`,
  });
});
