import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { type ToolCallSpec, toolResultsThroughCli } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";

/**
 * Permission mode `auto` judges an edit where it lands (src/tools/sandbox/real-paths.ts
 * `linkedPlaceOf`): a place of two parts (`.config/git`, `.local/bin`: git's user config and a
 * folder early in `PATH`, src/tools/sandbox/policy.ts `STARTUP_FILES`) reached through a
 * symbolic link at its first part (`.config -> elsewhere/cfg`) was edited without a question,
 * since neither the path as written nor the one it lands on spells the place, and only a link at
 * the place's last part was followed. Real `turnloop -p --permission-mode auto` children, the real
 * permission gate; skipped (and said so) where bubblewrap cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

/** Why auto asks about git's user config and `.local/bin` (policy.ts `laterRunReason`). */
function startupWhy(place: string): string {
  return `your shell or git reads ${place} and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a program early in PATH)`;
}

/** `-p`'s refusal of an edit auto asked about, with no terminal to ask on. */
function autoRefusal(tool: string, file: string, why: string): string {
  return (
    `Permission denied for '${tool}': no terminal to ask on; auto asks about edits of what ` +
    `later runs read: ${why}; rerun with --allow-tool '${tool}(${file})'`
  );
}

describe.runIf(sandboxWorks)("auto and a link above a place of two parts", () => {
  test("an edit through .config -> elsewhere/cfg or .local -> tools/local is asked about", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "elsewhere", "cfg", "git"), { recursive: true });
    await mkdir(join(repository, "tools", "local", "bin"), { recursive: true });
    await writeFile(join(repository, "elsewhere", "cfg", "git", "config"), "[core]\n");
    await symlink(join("elsewhere", "cfg"), join(repository, ".config"));
    await symlink(join("tools", "local"), join(repository, ".local"));
    const calls: ToolCallSpec[] = [
      ["edit", { path: ".config/git/config", old_str: "[core]", new_str: "[alias]" }],
      ["edit", { path: "elsewhere/cfg/git/config", old_str: "[core]", new_str: "[alias]" }],
      ["create", { path: ".config/git/ignore", file_text: "x\n" }],
      ["create", { path: ".local/bin/git", file_text: "x\n" }],
      ["create", { path: "tools/local/bin/git", file_text: "x\n" }],
      ["create", { path: ".config/other.txt", file_text: "x\n" }],
      ["create", { path: "tools/local/notes.txt", file_text: "x\n" }],
    ];
    // Through -p, which exits 0 (else this throws).
    const { stdout, results } = await toolResultsThroughCli({ cli, model }, calls, [
      "--permission-mode",
      "auto",
    ]);
    expect({ stdout, results }).toEqual({
      stdout: "Done.\n",
      results: [
        // The rule names the real path, as for every edit through a link.
        autoRefusal("edit", "elsewhere/cfg/git/config", startupWhy(".config/git")),
        autoRefusal("edit", "elsewhere/cfg/git/config", startupWhy(".config/git")),
        autoRefusal("create", "elsewhere/cfg/git/ignore", startupWhy(".config/git")),
        autoRefusal("create", "tools/local/bin/git", startupWhy(".local/bin")),
        autoRefusal("create", "tools/local/bin/git", startupWhy(".local/bin")),
        // Beside the place, in the folder the link leads to: ordinary files.
        `Created file ${join(repository, ".config", "other.txt")} with 2 characters`,
        `Created file ${join(repository, "tools", "local", "notes.txt")} with 2 characters`,
      ],
    });
    expect(await readFile(join(repository, "elsewhere", "cfg", "git", "config"), "utf8")).toBe(
      "[core]\n",
    );
    expect(existsSync(join(repository, "elsewhere", "cfg", "git", "ignore"))).toBe(false);
    expect(existsSync(join(repository, "tools", "local", "bin", "git"))).toBe(false);
  });
});
