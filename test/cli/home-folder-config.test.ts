import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A user's trial: with the cwd at `$HOME` itself, `~/.turnloop/config.json` (the default
// TURNLOOP_HOME's) was read as both the user's file and the project's: `turnloop config` named it
// twice, and as an untrusted project's file its allow rule was held, with a warning. The home
// folder is never a project: the user's file is read once.
describe("the cwd at the home folder itself", () => {
  test("the user's config file is read once, as the user's: its allow rule applies, no warning", async ({
    cli,
    model,
    home,
  }) => {
    const file = join(home, ".turnloop", "config.json");
    await mkdir(join(home, ".turnloop"), { recursive: true });
    await writeFile(file, `${JSON.stringify({ permissions: { allow: ["bash(touch *)"] } })}\n`);
    const env = { HOME: home, TURNLOOP_HOME: undefined };
    const shown = await cli(["config", "--json"], { cwd: home, env });
    expect(shown.stderr).toBe("");
    expect(JSON.parse(shown.stdout)).toMatchObject({ files: { user: file, project: null } });
    expect(JSON.parse(shown.stdout)).not.toHaveProperty("held");
    const text = await cli(["config"], { cwd: home, env });
    expect(text.stdout.split("\n")[0]).toBe(
      `config files: ${file} (user), no project's (the home folder is no project)`,
    );
    model.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "touch made" }) },
        ],
      },
      { text: "Done." },
    );
    const result = await cli(["-p", "make it"], { cwd: home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("warning");
    expect(existsSync(join(home, "made"))).toBe(true);
  });
});
