import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import {
  approveAll,
  type PermissionRequest,
  type SessionConfig,
  type TurnloopClient,
} from "../../src/sdk/index.js";
import { removeTree } from "../support/remove-tree.js";
import { callingTools } from "../support/replies.js";
import { requireSandbox } from "../support/sandbox.js";
import { fixtureForFile } from "./support.js";

/**
 * An app that confines its sessions (`sandbox: "workspace-write"`) and approves what it is asked
 * (`approveAll`, or `allowAllTools` with a handler that approves) must not have a stopped command
 * run outside the sandbox: that question goes only to `onSandboxBypassRequest` (README,
 * "Sandbox"). The folder outside is under /var/tmp: the sandbox's /tmp is its own.
 */

const sandboxWorks = await requireSandbox();
const fixture = fixtureForFile();
let outside: string;
let client: TurnloopClient;

beforeAll(async () => {
  outside = await mkdtemp(join("/var/tmp", "turnloop-sdk-bypass-outside-"));
  client = await fixture.startedClient();
});
afterAll(async () => {
  await removeTree(outside);
});

const REASON = "the sandbox lets it write only inside the workspace (Read-only file system)";

/** What the model reads when the stopped command was not run outside the sandbox. */
function notRunOutside(path: string, refusal: string): string {
  return (
    `bash: line 1: ${path}: Read-only file system\n<exited with exit code 1>\n` +
    `The sandbox stopped this command: ${REASON}. It was not run outside the sandbox: ${refusal}.`
  );
}

/** The refusal where the app registered no `onSandboxBypassRequest`. */
const NO_BYPASS_HANDLER =
  "nobody could be asked (the app registered no handler of requests to leave the sandbox, " +
  "onSandboxBypassRequest); start the server with --add-dir <folder> (sandboxed commands may " +
  "write there too), or register one to be asked";

/**
 * A session of `config` whose model writes `<outside>/<name>` with bash, then answers "Done.":
 * the tool results, the requests each handler got (`kind`, `requestSandboxBypass`,
 * `requestSandboxBypassReason`), and whether the file was written.
 */
async function writeOutside(
  name: string,
  config: SessionConfig,
): Promise<{ results: unknown[]; written: boolean; path: string }> {
  const session = await client.createSession({ sandbox: "workspace-write", ...config });
  const results: unknown[] = [];
  session.on((event: WireEvent) => {
    if (event.type === "tool.execution_complete") {
      results.push(event.data.result?.content);
    }
  });
  const path = join(outside, name);
  fixture.model.enqueue(callingTools(["call_1", "bash", { command: `echo x > ${path}` }]), {
    text: "Done.",
  });
  expect((await session.sendAndWait({ prompt: "write it" }))?.data.content).toBe("Done.");
  return { results, written: existsSync(path), path };
}

/** A handler that keeps what it is asked (as {@link writeOutside} describes) and approves. */
function approving(asked: unknown[], name: string) {
  return (request: PermissionRequest) => {
    const { kind, requestSandboxBypass, requestSandboxBypassReason } = request;
    asked.push({ handler: name, kind, requestSandboxBypass, requestSandboxBypassReason });
    return { kind: "approve-once" as const };
  };
}

test.runIf(sandboxWorks)(
  "approveAll, and allowAllTools with a handler that approves, never run a stopped command outside the sandbox",
  async () => {
    const asked: unknown[] = [];
    const approved = await writeOutside("approve-all.txt", {
      onPermissionRequest: (request, invocation) => {
        approving(asked, "onPermissionRequest")(request);
        return approveAll(request, invocation);
      },
    });
    const allowAll = await writeOutside("allow-all.txt", {
      allowAllTools: true,
      onPermissionRequest: approving(asked, "onPermissionRequest"),
    });
    expect(asked).toEqual([{ handler: "onPermissionRequest", kind: "shell" }]);
    expect([approved.results, allowAll.results]).toEqual([
      [notRunOutside(approved.path, NO_BYPASS_HANDLER)],
      [notRunOutside(allowAll.path, NO_BYPASS_HANDLER)],
    ]);
    expect([approved.written, allowAll.written]).toEqual([false, false]);
  },
);

test.runIf(sandboxWorks)(
  "onSandboxBypassRequest alone is asked to leave the sandbox, with Copilot's requestSandboxBypass; approveAll there rejects",
  async () => {
    const asked: unknown[] = [];
    const allowed = await writeOutside("bypass-approved.txt", {
      allowAllTools: true,
      onPermissionRequest: approving(asked, "onPermissionRequest"),
      onSandboxBypassRequest: approving(asked, "onSandboxBypassRequest"),
    });
    const withApproveAll = await writeOutside("bypass-approve-all.txt", {
      allowAllTools: true,
      onSandboxBypassRequest: approveAll,
    });
    expect(asked).toEqual([
      {
        handler: "onSandboxBypassRequest",
        kind: "shell",
        requestSandboxBypass: true,
        requestSandboxBypassReason: REASON,
      },
    ]);
    expect([allowed.results, withApproveAll.results]).toEqual([
      [
        `The sandbox stopped this command (${REASON}); the user allowed it to run again outside ` +
          "the sandbox:\n<exited with exit code 0>",
      ],
      [
        notRunOutside(
          withApproveAll.path,
          "approveAll does not approve running a command outside the sandbox",
        ),
      ],
    ]);
    expect([allowed.written, withApproveAll.written]).toEqual([true, false]);
  },
);
