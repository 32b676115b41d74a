import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { fixtureForEachTest, recordEvents } from "./support.js";

// Session 26's trial: an instruction file cut to fit the budget, or not text, was said only by
// `sessions show`. An app of the SDK server now receives each as a `session.warning` event of
// the session whose prompt read them.

const fixture = fixtureForEachTest();

test("an app sees an instruction file cut to fit, and one that is not text, as session.warning", async () => {
  await writeFile(join(fixture.cwd, "AGENTS.md"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]));
  await writeFile(join(fixture.cwd, "GEMINI.md"), "g".repeat(33_000));
  const client = await fixture.startedClient();
  const session = await client.createSession({ allowAllTools: true });
  const events = recordEvents(session);
  fixture.model.enqueue({ text: "Hi.", usage: null });
  await session.sendAndWait({ prompt: "hi" });
  expect(events.flatMap((event) => (event.type === "session.warning" ? [event.data] : []))).toEqual(
    [
      {
        warningType: "instructions_not_text",
        message: `${join(fixture.cwd, "AGENTS.md")} is binary data (application/x-elf), not text; it was left out of the instructions`,
      },
      {
        warningType: "instructions_cut",
        message:
          `${join(fixture.cwd, "GEMINI.md")} was cut to fit: only its first 32768 of 33000 bytes are used ` +
          `(its share of turnloop's 32768-byte budget for the project's files); README "Project instructions" says how the budget is shared`,
      },
    ],
  );
});
