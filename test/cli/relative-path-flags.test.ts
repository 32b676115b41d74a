import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A relative path on the command line is read against the folder turnloop was started in, as
// every command-line tool reads one, never against `--cwd` (README, "Project files"). Trial 42
// F5: `cd /tmp/trial42 && turnloop --cwd repo --mcp-config bom-mcp.json` looked for
// repo/bom-mcp.json ("no such file", exit 64); `--system-prompt-file` and `--add-dir` were read
// against `--cwd` too.

test("--mcp-config, --system-prompt-file and --add-dir are read against the shell's folder", async ({
  cli,
  model,
  home,
  repository,
}) => {
  // The shell's folder holds the files; the project (--cwd) holds none of them.
  const shell = join(home, "shell");
  await mkdir(join(shell, "docs"), { recursive: true });
  await writeFile(join(shell, "servers.json"), JSON.stringify({ mcpServers: {} }));
  await writeFile(join(shell, "prompt.md"), "You answer from the shell's folder's prompt.");
  const flags = ["--cwd", repository, "--mcp-config", "servers.json"];
  const files = ["--system-prompt-file", "prompt.md", "--add-dir", "docs"];
  const shown = await cli(["config", "--json", ...flags, ...files], { cwd: shell });
  expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
  const config = JSON.parse(shown.stdout) as Record<string, unknown>;
  expect([config.systemPromptFile, config.addDirs]).toEqual([
    { value: join(shell, "prompt.md"), source: "--system-prompt-file" },
    [{ value: join(shell, "docs"), source: "--add-dir" }],
  ]);
  model.enqueue({ text: "ok" });
  const result = await cli(["-p", "hi", ...flags, ...files], { cwd: shell });
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "ok\n" });
  expect(JSON.stringify(model.requests[0]?.body)).toContain(
    "You answer from the shell's folder's prompt.",
  );
});
