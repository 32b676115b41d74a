/**
 * One list of hidden places (session/sandbox-setup.ts `HostSandbox`, tools/sandbox/policy.ts
 * `hiddenPlacePaths`): what the sandbox hides from a command is what the file tools keep out
 * of. Session 31 found two lists: bubblewrap-arguments.ts built its own (Docker's socket in it,
 * not in the file tools'), and the runner read the home folder as `/` where the file tools read
 * the user's. Each place below is made, then read by `cat` in the real sandbox and judged for
 * `view` (permissions/hidden-places.ts) from the same host.
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeHiddenPlaces } from "../../src/permissions/hidden-places.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { HostSandbox } from "../../src/session/sandbox-setup.js";
import { ProcessRunner } from "../../src/tools/process-runner.js";
import { requireSandbox } from "../support/sandbox.js";

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)("the sandbox and the file tools hide the same places", () => {
  let base: string;
  let home: string;
  let workspace: string;
  let host: HostSandbox;
  /** Each file made, by the place that holds it; `notes.txt` is no hidden place. */
  let files: Record<string, string>;

  beforeAll(async () => {
    base = await mkdtemp("/var/tmp/turnloop-one-list-");
    home = join(base, "home");
    workspace = join(base, "workspace");
    const runtime = join(base, "run-user");
    const turnloopHome = join(base, "turnloop-home");
    files = {
      "a default file (~/.pgpass)": join(home, ".pgpass"),
      "a default folder (~/.config/gh)": join(home, ".config", "gh", "hosts.yml"),
      "sandbox.hidden (~/work-secrets)": join(home, "work-secrets", "token"),
      "the runtime folder": join(runtime, "agent.sock-info"),
      TURNLOOP_HOME: join(turnloopHome, "session-state", "s", "events.jsonl"),
      "no hidden place": join(home, "notes.txt"),
    };
    for (const file of Object.values(files)) {
      await mkdir(join(file, ".."), { recursive: true });
      await writeFile(file, "secret-value\n");
    }
    await mkdir(workspace);
    const flags = {
      cwd: workspace,
      maxTurns: 10,
      autopilot: false,
      maxAutopilotContinues: 0,
      allowAllTools: false,
      allowTools: [],
      denyTools: [],
      addDirs: [],
      mcpConfigs: [],
      noInstructions: true,
    };
    const config = {
      ...resolveRunConfig(flags, {}),
      sandboxHidden: [{ value: "~/work-secrets", source: "sandbox.hidden" }],
    };
    const env = { PATH: "/usr/bin:/bin", HOME: home, XDG_RUNTIME_DIR: runtime };
    host = new HostSandbox(config, env, turnloopHome, new ProcessRunner());
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("each place the file tools refuse, cat cannot read in the sandbox, and the other way round", async () => {
    const runner = host.runner("workspace-write");
    const seen: Record<string, { cat: string; view: string }> = {};
    for (const [place, file] of Object.entries(files)) {
      const result = await runner.run(`cat ${file} > /dev/null 2>&1 && echo read || echo hidden`, {
        cwd: workspace,
        env: { PATH: "/usr/bin:/bin", HOME: home },
        signal: new AbortController().signal,
        timeoutMs: 60_000,
        savePath: join(base, "output.txt"),
        secrets: [],
      });
      const judged = judgeHiddenPlaces(
        { places: host.hiddenPlaces() },
        "view",
        [file],
        [],
        workspace,
      );
      seen[place] = {
        cat: result.output.trim(),
        view: judged?.refusal === undefined ? "read" : "hidden",
      };
    }
    const hidden = { cat: "hidden", view: "hidden" };
    expect(seen).toEqual({
      "a default file (~/.pgpass)": hidden,
      "a default folder (~/.config/gh)": hidden,
      "sandbox.hidden (~/work-secrets)": hidden,
      "the runtime folder": hidden,
      TURNLOOP_HOME: hidden,
      "no hidden place": { cat: "read", view: "read" },
    });
  });

  it("the file tools' list holds Docker's socket, which the sandbox hides too", () => {
    expect(host.hiddenPlaces()).toEqual(
      expect.arrayContaining(["/run/docker.sock", "/var/run/docker.sock"]),
    );
  });
});
