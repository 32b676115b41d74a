import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";
import { requireSandbox, runCommandLine } from "../../support/sandbox.js";

// A workspace that lives under /tmp (`cd /tmp/myproj && turnloop`), through real bubblewrap: the
// sandbox's private /tmp must not hide or shadow it, nor an additional folder under /tmp, and a
// hidden place inside such a workspace stays hidden under every policy.

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)("a workspace under /tmp", () => {
  /** The folder under /tmp, the workspace and the additional folder in it. */
  let place = { base: "", workspace: "", extra: "" };

  beforeEach(async () => {
    const base = await mkdtemp("/tmp/turnloop-sandbox-under-tmp-");
    place = { base, workspace: join(base, "myproj"), extra: join(base, "extra") };
    const { workspace, extra } = place;
    const files: Array<[string, string]> = [
      [join(workspace, "existing.txt"), "workspace file\n"],
      [join(workspace, ".ssh", "id_ed25519"), "secret key\n"],
      [join(extra, "notes.txt"), "extra notes\n"],
    ];
    for (const [path, text] of files) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    }
  });
  afterEach(async () => {
    await rm(place.base, { recursive: true, force: true });
  });

  /**
   * Runs, under `policy` in the workspace (the home is the workspace itself): reads of a file in
   * each folder, `writes`, then a look at the hidden `.ssh`.
   */
  const run = (policy: "read-only" | "workspace-write", writes: readonly string[]) => {
    const { base, workspace, extra } = place;
    return runCommandLine(
      sandboxWrap(policy, {
        cwd: workspace,
        additionalDirectories: [extra],
        home: workspace,
        turnloopHome: join(base, "turnloop-home"),
      })(
        [
          "cat existing.txt",
          `cat ${extra}/notes.txt`,
          ...writes,
          "ls -A .ssh",
          "cat .ssh/id_ed25519 2>&1 || true",
        ].join("; "),
      ),
      { cwd: workspace, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace } },
    );
  };
  const exited = (written: string) => ({
    exitCode: 0,
    signal: null,
    output: `workspace file\nextra notes\n${written}cat: .ssh/id_ed25519: No such file or directory\n`,
  });

  it("workspace-write: the workspace and the additional folder are the host's and writable; the rest of /tmp is private", async () => {
    const { base, workspace, extra } = place;
    const outcome = await run("workspace-write", [
      "echo made > made.txt",
      `mkdir -p ${extra}/out && echo out > ${extra}/out/made.txt`,
      `echo private > ${base}/private.txt`,
    ]);
    expect(outcome).toEqual(exited(""));
    expect([
      await readFile(join(workspace, "made.txt"), "utf8"),
      await readFile(join(extra, "out", "made.txt"), "utf8"),
      existsSync(join(base, "private.txt")),
    ]).toEqual(["made\n", "out\n", false]);
  });

  it("read-only: both are seen as they are, read-only, and the hidden place stays hidden", async () => {
    const { extra } = place;
    const outcome = await run("read-only", [
      "{ echo changed > existing.txt; } 2>&1",
      `{ echo changed > ${extra}/notes.txt; } 2>&1`,
    ]);
    expect(outcome).toEqual(
      exited(
        "bash: line 1: existing.txt: Read-only file system\n" +
          `bash: line 1: ${extra}/notes.txt: Read-only file system\n`,
      ),
    );
  });
});
