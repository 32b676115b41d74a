import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";
import { requireSandbox, runCommandStreams } from "../../support/sandbox.js";

// The trial's finding 10b: the sandbox's /tmp and /dev/shm were memory file systems of 12 G each
// (half the machine's memory), so one command could take that much RAM. Measured inside real
// bubblewrap with df, and by writing past the cap.

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)("the sandbox's /tmp and /dev/shm", () => {
  let workspace = "";
  beforeAll(async () => {
    workspace = await mkdtemp("/var/tmp/turnloop-sandbox-tmpfs-");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const run = (command: string, tmpfsSizeMiB?: number) =>
    runCommandStreams(
      sandboxWrap("workspace-write", {
        cwd: workspace,
        home: workspace,
        turnloopHome: join(workspace, ".turnloop-home"),
        ...(tmpfsSizeMiB === undefined ? {} : { tmpfsSizeMiB }),
      })(command),
      { cwd: workspace, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace } },
    );

  const SIZES = "df --output=target,size -BM /tmp /dev/shm | tail -n +2 | awk '{print $1, $2}'";

  it("are capped at 1 GiB each by default", async () => {
    const result = await run(SIZES);
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      stdout: "/tmp 1024M\n/dev/shm 1024M\n",
      stderr: "",
    });
  });

  it("sandbox.tmpfsSizeMiB sets the cap, and a write past it fails", async () => {
    const sizes = await run(SIZES, 8);
    const past = await run(
      "head -c 9M /dev/zero > /tmp/big; echo tmp $?; head -c 9M /dev/zero > /dev/shm/big; echo shm $?",
      8,
    );
    expect([sizes.stdout, past.stdout, past.stderr]).toEqual([
      "/tmp 8M\n/dev/shm 8M\n",
      "tmp 1\nshm 1\n",
      "head: error writing 'standard output': No space left on device\n".repeat(2),
    ]);
  });
});
