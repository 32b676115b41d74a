import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { chatMessages } from "../support/harness.js";

// A trial of session 18's build (round 3, session 19, item 4): a root AGENTS.md that filled the
// project's 32 KiB budget left the cwd's AGENTS.md out without a word. README: "the project files
// together are cut at 32 KiB … a cut file says so". The nearest file gets the budget first, and a
// file cut or left out says so in the prompt and in `session.instructions_loaded`.

test.override({ git: true });

function systemPrompt(model: FakeModelServer): string {
  return String(chatMessages(model, 0)[0]?.content);
}

/** The text the prompt holds for the file at `path` (between its tags). */
function section(prompt: string, path: string): string {
  const start = prompt.indexOf(`<instructions path="${path}">\n`);
  expect(start).toBeGreaterThan(0);
  const body = prompt.slice(start + `<instructions path="${path}">\n`.length);
  return body.slice(0, body.indexOf("\n</instructions>"));
}

describe("the project instructions' 32 KiB budget", () => {
  test("a root file over the budget: the cwd's file is whole, the root's is cut to what is left and says so", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const sub = join(repository, "sub");
    await mkdir(sub);
    await writeFile(join(repository, "AGENTS.md"), `${"r".repeat(40_000)}\n`);
    await writeFile(join(sub, "AGENTS.md"), "Sub rule: use tabs.\n");
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi", "--cwd", sub]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    expect(section(prompt, join(sub, "AGENTS.md"))).toBe("Sub rule: use tabs.");
    const subBytes = Buffer.byteLength("Sub rule: use tabs.\n");
    const left = 32_768 - subBytes;
    expect(section(prompt, join(repository, "AGENTS.md"))).toBe(
      `${"r".repeat(left)}\n[cut: the file is longer than the ${left} bytes left of turnloop's 32768-byte budget for the project's files, given to nearer folders' files first]`,
    );
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events.find((event) => event.type === "session.instructions_loaded")?.data).toEqual({
      files: [
        { path: join(repository, "AGENTS.md"), scope: "project", bytes: left, truncated: true },
        { path: join(sub, "AGENTS.md"), scope: "project", bytes: subBytes, truncated: false },
      ],
    });
  });

  test("a cwd file that fills the budget: the folders above are left out, each saying so", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const middle = join(repository, "packages");
    const core = join(middle, "core");
    await mkdir(core, { recursive: true });
    await writeFile(join(repository, "AGENTS.md"), "Root rule.\n");
    await writeFile(join(middle, "CLAUDE.md"), "Packages rule.\n");
    await writeFile(join(core, "AGENTS.md"), `${"c".repeat(33_000)}\n`);
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi", "--cwd", core]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    const leftOut =
      "[left out: turnloop's 32768-byte budget for the project's files was spent on nearer folders' files]";
    expect(section(prompt, join(repository, "AGENTS.md"))).toBe(leftOut);
    expect(section(prompt, join(middle, "CLAUDE.md"))).toBe(leftOut);
    expect(section(prompt, join(core, "AGENTS.md"))).toBe(
      `${"c".repeat(32_768)}\n[cut: the file is longer than turnloop's 32768-byte budget]`,
    );
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events.find((event) => event.type === "session.instructions_loaded")?.data).toEqual({
      files: [
        { path: join(repository, "AGENTS.md"), scope: "project", bytes: 0, truncated: true },
        { path: join(middle, "CLAUDE.md"), scope: "project", bytes: 0, truncated: true },
        { path: join(core, "AGENTS.md"), scope: "project", bytes: 32_768, truncated: true },
      ],
    });
  });
});
