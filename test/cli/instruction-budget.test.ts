import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { fairShares } from "../../src/session/instructions.js";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";

// Trials of round 3: session 19's (item 4) found a root AGENTS.md that filled the project's
// 32 KiB budget leaving out the cwd's without a word; session 26's (findings 6 and 7) found the
// fix of that, the nearest file first, leaving out the root's rules for one big AGENTS.md in the
// cwd, said only by `sessions show`, and a binary AGENTS.md sent to the model as garbage. README
// ("Project instructions"): the project's files share the budget, a file longer than its share is
// cut at its end, and a cut file, or one left out as not text, is said in a warning.

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

/** The `turnloop: warning:` lines of `stderr` (replies report no usage: no truncation warning). */
function warnings(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("turnloop: warning: "));
}

const SHARE = "its share of turnloop's 32768-byte budget for the project's files";
const README = `README "Project instructions" says how the budget is shared`;

describe("the project instructions' 32 KiB budget, shared by the project's files", () => {
  test("a root file over the budget: the cwd's file is whole, the root's is cut to what is left, and a warning says so", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const sub = join(repository, "sub");
    await mkdir(sub);
    await writeFile(join(repository, "AGENTS.md"), `${"r".repeat(40_000)}\n`);
    await writeFile(join(sub, "AGENTS.md"), "Sub rule: use tabs.\n");
    model.enqueue({ text: "ok", usage: null });
    const result = await cli(["-p", "hi", "--cwd", sub]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    expect(section(prompt, join(sub, "AGENTS.md"))).toBe("Sub rule: use tabs.");
    const subBytes = Buffer.byteLength("Sub rule: use tabs.\n");
    const left = 32_768 - subBytes;
    const cut = `only its first ${left} of 40001 bytes are used (${SHARE})`;
    expect(section(prompt, join(repository, "AGENTS.md"))).toBe(
      `${"r".repeat(left)}\n[cut: ${cut}]`,
    );
    expect(warnings(result.stderr)).toEqual([
      `turnloop: warning: ${join(repository, "AGENTS.md")} was cut to fit: ${cut}; ${README}`,
    ]);
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events.find((event) => event.type === "session.instructions_loaded")?.data).toEqual({
      files: [
        { path: join(repository, "AGENTS.md"), scope: "project", bytes: left, truncated: true },
        { path: join(sub, "AGENTS.md"), scope: "project", bytes: subBytes, truncated: false },
      ],
      warnings: [
        {
          warningType: "instructions_cut",
          message: `${join(repository, "AGENTS.md")} was cut to fit: ${cut}; ${README}`,
        },
      ],
    });
  });

  test("a cwd file that fills the budget: the root's and the middle folder's rules stay whole, the cwd's file is cut and said", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const middle = join(repository, "packages");
    const core = join(middle, "core");
    await mkdir(join(repository, ".github"), { recursive: true });
    await mkdir(core, { recursive: true });
    await writeFile(join(repository, ".github", "copilot-instructions.md"), "Root rule.\n");
    await writeFile(join(middle, "CLAUDE.md"), "Packages rule.\n");
    await writeFile(join(core, "AGENTS.md"), `${"c".repeat(60_000)}\n`);
    model.enqueue({ text: "ok", usage: null }, { text: "again", usage: null });
    const result = await cli(["-p", "hi", "--cwd", core]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    const rootPath = join(repository, ".github", "copilot-instructions.md");
    expect(section(prompt, rootPath)).toBe("Root rule.");
    expect(section(prompt, join(middle, "CLAUDE.md"))).toBe("Packages rule.");
    const kept = 32_768 - Buffer.byteLength("Root rule.\nPackages rule.\n");
    const cut = `only its first ${kept} of 60001 bytes are used (${SHARE})`;
    expect(section(prompt, join(core, "AGENTS.md"))).toBe(`${"c".repeat(kept)}\n[cut: ${cut}]`);
    const warning = `turnloop: warning: ${join(core, "AGENTS.md")} was cut to fit: ${cut}; ${README}`;
    expect(warnings(result.stderr)).toEqual([warning]);
    const sessionId = printedSessionId(result.stderr);
    const events = await loggedEvents(sessionId);
    expect(events.find((event) => event.type === "session.instructions_loaded")?.data).toEqual({
      files: [
        { path: rootPath, scope: "project", bytes: 11, truncated: false },
        { path: join(middle, "CLAUDE.md"), scope: "project", bytes: 15, truncated: false },
        { path: join(core, "AGENTS.md"), scope: "project", bytes: kept, truncated: true },
      ],
      warnings: [{ warningType: "instructions_cut", message: warning.slice(19) }],
    });
    // A continued session was told already (the log holds it): not again while the file is the same.
    const again = await cli(["-p", "more", "--continue", "--cwd", core]);
    expect(again.code).toBe(0);
    expect(warnings(again.stderr)).toEqual([]);
  });

  test("two files over half the budget each: both are cut to half, each said", async ({
    cli,
    model,
    repository,
  }) => {
    const sub = join(repository, "sub");
    await mkdir(sub);
    await writeFile(join(repository, "AGENTS.md"), "r".repeat(20_000));
    await writeFile(join(sub, "CLAUDE.md"), "s".repeat(30_000));
    model.enqueue({ text: "ok", usage: null });
    const result = await cli(["-p", "hi", "--cwd", sub]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    expect(section(prompt, join(repository, "AGENTS.md"))).toBe(
      `${"r".repeat(16_384)}\n[cut: only its first 16384 of 20000 bytes are used (${SHARE})]`,
    );
    expect(section(prompt, join(sub, "CLAUDE.md"))).toBe(
      `${"s".repeat(16_384)}\n[cut: only its first 16384 of 30000 bytes are used (${SHARE})]`,
    );
    expect(warnings(result.stderr)).toEqual([
      `turnloop: warning: ${join(repository, "AGENTS.md")} was cut to fit: only its first 16384 of 20000 bytes are used (${SHARE}); ${README}`,
      `turnloop: warning: ${join(sub, "CLAUDE.md")} was cut to fit: only its first 16384 of 30000 bytes are used (${SHARE}); ${README}`,
    ]);
  });

  test("shares: small files whole, the larger ones share what is left, never more than the budget", () => {
    expect(fairShares([11, 15, 60_001], 32_768)).toEqual([11, 15, 32_742]);
    expect(fairShares([60_001, 11], 32_768)).toEqual([32_757, 11]);
    expect(fairShares([20_000, 30_000, 100], 32_768)).toEqual([16_334, 16_334, 100]);
    expect(fairShares([1, 2, 3], 32_768)).toEqual([1, 2, 3]);
    expect(fairShares([], 32_768)).toEqual([]);
  });
});

describe("an instruction file that is not text", () => {
  test("is left out with a warning in the words of binary stdin, and its folder's next file is read", async ({
    cli,
    model,
    repository,
    home,
    loggedEvents,
  }) => {
    const sub = join(repository, "sub");
    await mkdir(sub);
    await writeFile(join(repository, "AGENTS.md"), "Root rule.\n");
    // NUL bytes and control characters, as the trial's 2,000 random bytes held.
    await writeFile(
      join(sub, "AGENTS.md"),
      Buffer.concat([Buffer.from([0, 1, 2]), randomBytes(2_000)]),
    );
    await writeFile(join(sub, "CLAUDE.md"), "Sub rule.\n");
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await writeFile(join(home, "AGENTS.md"), png);
    model.enqueue({ text: "ok", usage: null });
    const result = await cli(["-p", "hi", "--cwd", sub]);
    expect(result.code).toBe(0);
    const prompt = systemPrompt(model);
    expect(prompt).not.toContain(join(sub, "AGENTS.md"));
    expect(prompt).not.toContain(join(home, "AGENTS.md"));
    expect(section(prompt, join(repository, "AGENTS.md"))).toBe("Root rule.");
    expect(section(prompt, join(sub, "CLAUDE.md"))).toBe("Sub rule.");
    expect(warnings(result.stderr)).toEqual([
      `turnloop: warning: ${join(home, "AGENTS.md")} is binary data (image/png), not text; it was left out of the instructions`,
      `turnloop: warning: ${join(sub, "AGENTS.md")} is binary data, not text; it was left out of the instructions`,
    ]);
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(
      events.filter((event) => event.type === "session.warning").map((event) => event.data),
    ).toEqual([
      {
        warningType: "instructions_not_text",
        message: `${join(home, "AGENTS.md")} is binary data (image/png), not text; it was left out of the instructions`,
      },
      {
        warningType: "instructions_not_text",
        message: `${join(sub, "AGENTS.md")} is binary data, not text; it was left out of the instructions`,
      },
    ]);
  });
});

describe("a continued session", () => {
  // The closing note of round 3, session 26: `-p -c` said a cut AGENTS.md again at every run, on
  // stderr and as one more identical `session.warning` in the log.
  test("is told of a cut file once, and again when the file changes", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const path = join(repository, "AGENTS.md");
    await writeFile(path, `${"r".repeat(40_000)}\n`);
    const cut = (size: number) =>
      `${path} was cut to fit: only its first 32768 of ${size} bytes are used (${SHARE}); ${README}`;
    const run = async (...flags: string[]) => {
      model.enqueue({ text: "ok", usage: null });
      const result = await cli(["-p", "hi", "--cwd", repository, ...flags]);
      expect(result.code).toBe(0);
      return result;
    };
    const first = await run();
    const sessionId = printedSessionId(first.stderr);
    const runs = [first, await run("-c"), await run("-c")];
    await writeFile(path, `${"r".repeat(50_000)}\n`);
    runs.push(await run("-c"), await run("-c"));
    expect(runs.map((result) => warnings(result.stderr))).toEqual([
      [`turnloop: warning: ${cut(40_001)}`],
      [],
      [],
      [`turnloop: warning: ${cut(50_001)}`],
      [],
    ]);
    const events = await loggedEvents(sessionId);
    expect(
      events.filter((event) => event.type === "session.warning").map((event) => event.data),
    ).toEqual([
      { warningType: "instructions_cut", message: cut(40_001) },
      { warningType: "instructions_cut", message: cut(50_001) },
    ]);
  });
});
