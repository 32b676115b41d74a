import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";
import { requireSandbox, runCommandStreams } from "../../support/sandbox.js";

// A fresh user's trial: in the sandbox without network, `npm view left-pad version` took some
// 72 s to fail (1 s outside): not the name lookup, which fails at once there (`EAI_AGAIN`), but
// npm's two retries of the fetch, backing off 10 s then 60 s. The network-less sandbox tells npm
// not to retry (bubblewrap-arguments.ts); counted here by npm's own log of each attempt, through
// real bubblewrap (the time is measured in bench/notes/notices.md, not here).

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)("name lookups and fetches without the network", () => {
  let workspace = "";
  beforeAll(async () => {
    workspace = await mkdtemp("/var/tmp/turnloop-sandbox-offline-");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const run = (command: string, network: boolean) =>
    runCommandStreams(
      sandboxWrap("workspace-write", {
        cwd: workspace,
        home: workspace,
        turnloopHome: join(workspace, ".turnloop-home"),
        network,
      })(command),
      {
        cwd: workspace,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace },
      },
    );

  it("a name lookup fails at once as a lookup failure, not a refused or reset connection", async () => {
    const lookup = `node -e 'require("node:dns").lookup("example.com", (e) => console.log(e?.code))'`;
    const result = await run(`getent hosts example.com; echo "getent $?"; ${lookup}`, false);
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      stdout: "getent 2\nEAI_AGAIN\n",
      stderr: "",
    });
  });

  it("npm fetches once, and fails with the lookup's error", async () => {
    const result = await run(
      "npm view left-pad version --registry=http://registry.invalid/ --loglevel=http --no-update-notifier 2>&1",
      false,
    );
    const attempts = result.stdout
      .split("\n")
      .filter((line) => /left-pad attempt \d+ failed/.test(line));
    expect(attempts).toEqual([
      "npm http fetch GET http://registry.invalid/left-pad attempt 1 failed with EAI_AGAIN",
    ]);
    expect(result.stdout).toContain("npm error code EAI_AGAIN");
    expect(result.exitCode).not.toBe(0);
  });

  it("with the network on, npm's own retry setting is left alone", async () => {
    const result = await run("printenv npm_config_fetch_retries || echo unset", true);
    expect(result.stdout).toBe("unset\n");
  });
});
