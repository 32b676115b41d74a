import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";

// Project instructions (AGENTS.md, copilot-instructions.md) and the system prompt flags, through
// the built CLI as a child process against the fake model server, in a repository with a
// package folder below its root.

test.override({ git: true });

test.beforeEach(async ({ repository }) => {
  await mkdir(join(repository, "packages", "core"), { recursive: true });
});

function systemPrompt(model: FakeModelServer, index = 0): string {
  const first = chatMessages(model, index)[0];
  expect(first?.role).toBe("system");
  return String(first?.content);
}

describe("project instructions", () => {
  test("AGENTS.md from the repository root down to the cwd and the user's file go into the system prompt with their paths, and are recorded", async ({
    cli,
    model,
    home,
    repository,
    loggedEvents,
  }) => {
    const core = join(repository, "packages", "core");
    await writeFile(join(home, "AGENTS.md"), "Always answer in English.\n");
    await writeFile(join(repository, "AGENTS.md"), "Run npm test before you finish.\n");
    // No AGENTS.md in packages/: nothing from there. packages/core has Claude Code's file only.
    await writeFile(join(core, "CLAUDE.md"), "Core: never edit generated/.\n");
    await writeFile(join(core, "GEMINI.md"), "not read: CLAUDE.md came first\n");
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi", "--cwd", core]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    const user = prompt.indexOf(`<instructions path="${join(home, "AGENTS.md")}">`);
    const root = prompt.indexOf(`<instructions path="${join(repository, "AGENTS.md")}">`);
    const nested = prompt.indexOf(`<instructions path="${join(core, "CLAUDE.md")}">`);
    expect(user).toBeGreaterThan(0);
    expect(root).toBeGreaterThan(user);
    expect(nested).toBeGreaterThan(root);
    expect(prompt).toContain("Run npm test before you finish.");
    expect(prompt).toContain("Core: never edit generated/.");
    expect(prompt).not.toContain("not read");

    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events.map((event) => event.type).slice(0, 3)).toEqual([
      "session.start",
      "session.instructions_loaded",
      "user.message",
    ]);
    expect(events[1]?.data).toEqual({
      files: [
        { path: join(home, "AGENTS.md"), scope: "user", bytes: 26, truncated: false },
        { path: join(repository, "AGENTS.md"), scope: "project", bytes: 32, truncated: false },
        { path: join(core, "CLAUDE.md"), scope: "project", bytes: 29, truncated: false },
      ],
    });
    const shown = await cli(["sessions", "show", printedSessionId(result.stderr)]);
    expect(shown.stdout).toContain(
      `instructions: ${join(home, "AGENTS.md")}, ${join(repository, "AGENTS.md")}, ${join(core, "CLAUDE.md")}\n`,
    );
  });

  test(".github/copilot-instructions.md is the last fallback; a huge file is cut to the budget and says so", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    await mkdir(join(repository, ".github"));
    await writeFile(
      join(repository, ".github", "copilot-instructions.md"),
      `${"é".repeat(20_000)}\n`,
    );
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi"]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    expect(prompt).toContain(`path="${join(repository, ".github", "copilot-instructions.md")}"`);
    expect(prompt).toContain(
      "[cut: only its first 32768 of 40001 bytes are used (its share of turnloop's 32768-byte budget for the project's files)]",
    );
    expect(prompt).not.toContain("\uFFFD");
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events[1]?.data).toMatchObject({ files: [{ bytes: 32_768, truncated: true }] });
  });

  test("--no-instructions leaves them out and records nothing", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    await writeFile(join(repository, "AGENTS.md"), "Secret project rule.\n");
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi", "--no-instructions"]);
    expect(result.code).toBe(0);
    expect(systemPrompt(model)).not.toContain("Secret project rule");
    const types = (await loggedEvents(printedSessionId(result.stderr))).map((event) => event.type);
    expect(types).not.toContain("session.instructions_loaded");
  });

  test("--append-system-prompt adds text at the end; --system-prompt-file replaces the base prompt", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    await writeFile(join(repository, "AGENTS.md"), "Project rule.\n");
    await writeFile(join(repository, "prompt.txt"), "You are a terse reviewer.\n");
    model.enqueue({ text: "ok" }, { text: "ok" });
    const appended = await cli(["-p", "hi", "--append-system-prompt", "Reply in French."]);
    expect(appended.code).toBe(0);
    const first = systemPrompt(model, 0);
    expect(first.startsWith("You are turnloop")).toBe(true);
    expect(first.endsWith("\n\nReply in French.")).toBe(true);
    expect(first.indexOf("Project rule.")).toBeLessThan(first.indexOf("Reply in French."));

    const replaced = await cli(["-p", "hi", "--system-prompt-file", "prompt.txt"]);
    expect(replaced.code).toBe(0);
    const second = systemPrompt(model, 1);
    expect(second.startsWith("You are a terse reviewer.\n\nWorking directory: ")).toBe(true);
    expect(second).not.toContain("You are turnloop");
    expect(second).toContain("Project rule.");
    const events = await loggedEvents(printedSessionId(replaced.stderr));
    expect(events[1]?.data).toMatchObject({
      files: [
        { path: join(repository, "prompt.txt"), scope: "system-prompt-file" },
        { scope: "project" },
      ],
    });

    const missing = await cli(["-p", "hi", "--system-prompt-file", "nope.txt"]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain(
      `cannot read --system-prompt-file ${join(repository, "nope.txt")}`,
    );
  });
});
