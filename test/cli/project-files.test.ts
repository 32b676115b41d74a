import { mkdir, mkdtemp, open, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { fifoMaker } from "../support/fifos.js";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial 34, HIGH 1, 2, 5 and 6: turnloop's own process read the files a repository names as if
// they were trusted plain files. `AGENTS.md -> ~/.ssh/id_rsa` went into the system prompt (even
// with --sandbox); `.turnloop/config.json -> ~/.ssh/id_rsa` printed the key in a JSON error;
// `.turnloop/config.json -> /dev/zero` ran to 2 GB and a FIFO blocked for good; a 1 GiB AGENTS.md
// was read whole at every prompt. One reader (src/tools/project-file.ts) now reads them all:
// within the project, out of the hidden places, regular files only, to a bound, no content in an
// error. Each run: the built CLI under -p against the fake model, the repository's files real
// (symbolic links, a FIFO, /dev/zero, a sparse file).

test.override({ git: true });

const KEY = "PRIVATE-KEY-SSH-XYZ\n";
const OUTSIDE = "OUTSIDE-SECRET\n";

/** FIFOs made by a test, released after it (a reader blocked on one ends). */
const makeFifo = fifoMaker();

async function plantKey(home: string): Promise<string> {
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".ssh", "id_rsa"), KEY);
  return join(home, ".ssh", "id_rsa");
}

describe("instruction files", () => {
  test("a link into a hidden place or out of the project is not read: a warning names it, the prompt holds neither", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const outside = await mkdtemp(join(tmpdir(), "turnloop-outside-"));
    try {
      await writeFile(join(outside, "secret.txt"), OUTSIDE);
      await symlink(await plantKey(home), join(repository, "AGENTS.md"));
      await mkdir(join(repository, "sub"));
      await symlink(join(outside, "secret.txt"), join(repository, "sub", "CLAUDE.md"));
      await writeFile(join(repository, "sub", "GEMINI.md"), "Use tabs.\n");
      model.enqueue({ text: "ok" });
      const result = await cli(["-p", "hi", "--cwd", join(repository, "sub")]);
      expect(result.code).toBe(0);
      const everything = JSON.stringify(model.requests);
      expect(everything).not.toContain("PRIVATE-KEY");
      expect(everything).not.toContain("OUTSIDE-SECRET");
      // The next name of the folder is read instead, as for a binary file.
      expect(String(chatMessages(model, 0)[0]?.content)).toContain("Use tabs.");
      expect(result.stderr).not.toContain("PRIVATE-KEY");
      expect(result.stderr).not.toContain("OUTSIDE-SECRET");
      const lines = result.stderr.split("\n").filter((line) => line.includes("left out"));
      expect(lines).toEqual([
        `turnloop: warning: ${join(repository, "AGENTS.md")} leads to ${join(home, ".ssh", "id_rsa")}, in ${join(home, ".ssh")}, a place hidden from the agent (credentials, histories, turnloop's session logs; README, Sandbox); it was left out of the instructions (README, "Project files")`,
        `turnloop: warning: ${join(repository, "sub", "CLAUDE.md")} leads to ${join(outside, "secret.txt")}, outside the project folder ${repository}; a project's file must lie in its project (a symbolic link out of it is not followed); it was left out of the instructions (README, "Project files")`,
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("a FIFO and /dev/zero as AGENTS.md are refused at once, not read", async ({
    cli,
    model,
    repository,
  }) => {
    makeFifo(join(repository, "AGENTS.md"));
    await mkdir(join(repository, "sub"));
    await symlink("/dev/zero", join(repository, "sub", "AGENTS.md"));
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi", "--cwd", join(repository, "sub")]);
    expect(result.code).toBe(0);
    const lines = result.stderr.split("\n").filter((line) => line.includes("left out"));
    expect(lines).toEqual([
      `turnloop: warning: ${join(repository, "AGENTS.md")} is not a regular file (a FIFO); only a regular file is read; it was left out of the instructions (README, "Project files")`,
      `turnloop: warning: ${join(repository, "sub", "AGENTS.md")} leads to /dev/zero, outside the project folder ${repository}; a project's file must lie in its project (a symbolic link out of it is not followed); it was left out of the instructions (README, "Project files")`,
    ]);
  });

  test("a 1 GiB AGENTS.md is cut to its budget from its first bytes, never read whole", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    // Text first, then a sparse tail of NUL bytes: read whole, the file is binary data (and a
    // string longer than V8 can hold); its start is text that fills the budget.
    const file = await open(join(repository, "AGENTS.md"), "w");
    await file.write(`${"Run the tests first.\n".repeat(5_000)}`);
    await file.truncate(1024 ** 3);
    await file.close();
    model.enqueue({ text: "ok" });
    const result = await cli(["-p", "hi"]);
    expect(result.code).toBe(0);
    const prompt = String(chatMessages(model, 0)[0]?.content);
    expect(prompt).toContain("Run the tests first.");
    const events = await loggedEvents(printedSessionId(result.stderr));
    const loaded = events.find((event) => event.type === "session.instructions_loaded");
    expect(loaded?.data).toEqual({
      files: [
        { path: join(repository, "AGENTS.md"), scope: "project", bytes: 32768, truncated: true },
      ],
      warnings: [
        {
          warningType: "instructions_cut",
          message: `${join(repository, "AGENTS.md")} was cut to fit: only its first 32768 of 1073741824 bytes are used (its share of turnloop's 32768-byte budget for the project's files); README "Project instructions" says how the budget is shared`,
        },
      ],
    });
  });
});

describe("config files", () => {
  test("a project config that leads to a secret is refused, naming the file and why, never its content", async ({
    cli,
    home,
    repository,
  }) => {
    await mkdir(join(repository, ".turnloop"));
    await symlink(await plantKey(home), join(repository, ".turnloop", "config.json"));
    const result = await cli(["-p", "hi"]);
    expect(result.code).toBe(64);
    expect(result.stderr).not.toContain("PRIVATE");
    expect(result.stderr).toContain(
      `turnloop: ${join(repository, ".turnloop", "config.json")} leads to ${join(home, ".ssh", "id_rsa")}, in ${join(home, ".ssh")}, a place hidden from the agent`,
    );
  });

  test("a JSON error says where and what, never quoting the file", async ({ cli, repository }) => {
    await mkdir(join(repository, ".turnloop"));
    await writeFile(join(repository, ".turnloop", "config.json"), KEY);
    await writeFile(join(repository, ".mcp.json"), `{\n  "mcpServers": ${KEY}}`);
    const config = await cli(["-p", "hi"]);
    expect([config.code, config.stderr]).toEqual([
      64,
      `turnloop: ${join(repository, ".turnloop", "config.json")} is not valid JSON: line 1, column 1: Unexpected character\n`,
    ]);
    await rm(join(repository, ".turnloop"), { recursive: true });
    const servers = await cli(["mcp", "list"]);
    expect(servers.stderr).not.toContain("PRIVATE");
    expect(servers.stderr).toContain(
      `${join(repository, ".mcp.json")} is not valid JSON: line 2, column 17: Unexpected character`,
    );
  });

  test("/dev/zero, a FIFO and a file over 1 MiB are refused at once with a clear error", async ({
    cli,
    repository,
  }) => {
    await mkdir(join(repository, ".turnloop"));
    const config = join(repository, ".turnloop", "config.json");
    const cases: Array<[() => Promise<void>, string]> = [
      [() => symlink("/dev/zero", config), "leads to /dev/zero, outside the project folder"],
      [async () => makeFifo(config), "is not a regular file (a FIFO); only a regular file is read"],
      [
        () => writeFile(config, `{"model": "${"a".repeat(1024 * 1024)}"}`),
        "is 1048589 bytes, more than the 1 MiB a config file may hold",
      ],
    ];
    for (const [make, words] of cases) {
      await rm(config, { force: true });
      await make();
      const result = await cli(["-p", "hi"]);
      expect([result.code, result.stderr.split("\n")[0]]).toEqual([
        64,
        expect.stringContaining(`turnloop: ${config} ${words}`),
      ]);
    }
    await rm(config);
    await symlink("/dev/zero", join(repository, ".mcp.json"));
    const servers = await cli(["mcp", "list"]);
    expect(servers.stderr).toContain(
      `${join(repository, ".mcp.json")} leads to /dev/zero, outside the project folder`,
    );
  });
});
