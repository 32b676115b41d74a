import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import type { PermissionRequest } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import { removeTree } from "../support/remove-tree.js";
import { callingTools } from "../support/replies.js";
import { requireSandbox } from "../support/sandbox.js";
import { fixtureForFile } from "./support.js";

/**
 * An app chooses the sandbox by starting the server with `--sandbox`, or per session with the
 * session config's `sandbox` (README, "Sandbox"): the session's commands then run in bubblewrap. The folder outside is under /var/tmp: the
 * sandbox's /tmp is its own.
 */

const sandboxWorks = await requireSandbox();
const fixture = fixtureForFile();
let outside: string;

beforeAll(async () => {
  outside = await mkdtemp(join("/var/tmp", "turnloop-sdk-sandbox-outside-"));
});
afterAll(async () => {
  await removeTree(outside);
});

/** What a tool result says when a command the sandbox stopped is not run outside it, no handler. */
const NO_HANDLER =
  "nobody could be asked (the app registered no handler of requests to leave the sandbox, onSandboxBypassRequest); ";
const OR_HANDLER = ", or register one to be asked";

/**
 * Has the model run `echo x > <outside>/<name>` with bash (call `call_<name>`), then answer
 * `answer`; returns the path the command writes to.
 */
function modelWritesOutside(name: string, answer: string): string {
  const path = join(outside, name);
  fixture.model.enqueue(callingTools([`call_${name}`, "bash", { command: `echo x > ${path}` }]), {
    text: answer,
  });
  return path;
}

test.runIf(sandboxWorks)(
  "cliArgs --sandbox workspace-write: a command cannot write outside",
  async () => {
    const client = fixture.client({
      cliArgs: ["--sandbox", "workspace-write", "--allow-all-tools"],
    });
    const session = await client.createSession();
    const results: unknown[] = [];
    session.on((event: WireEvent) => {
      if (event.type === "tool.execution_complete") {
        results.push(event.data.result);
      }
    });
    const escaped = modelWritesOutside("escaped.txt", "Done.");
    const reply = await session.sendAndWait({ prompt: "write it" });
    expect(reply?.data.content).toBe("Done.");
    expect(results).toEqual([
      {
        content:
          `bash: line 1: ${escaped}: Read-only file system\n<exited with exit code 1>\n` +
          "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
          `(Read-only file system). It was not run outside the sandbox: ${NO_HANDLER}start the ` +
          `server with --add-dir <folder> (sandboxed commands may write there too)${OR_HANDLER}.`,
      },
    ]);
    expect(existsSync(escaped)).toBe(false);
  },
);

// A fresh user's trial: a write to .git/hooks was told to start the server with --add-dir, which
// never helps: the sandbox keeps the place read-only under every policy.
test.runIf(sandboxWorks)(
  "a hook write: the reason names .git/hooks, the way out is a session without the sandbox",
  async () => {
    execFileSync("git", ["init", "-q", fixture.cwd]);
    const client = fixture.client({ cliArgs: ["--sandbox", "workspace-write", "--yolo"] });
    const session = await client.createSession();
    const results: unknown[] = [];
    session.on((event: WireEvent) => {
      if (event.type === "tool.execution_complete") {
        results.push(event.data.result);
      }
    });
    const command = "echo x > .git/hooks/pre-commit";
    fixture.model.enqueue(callingTools(["call_hook", "bash", { command }]), { text: "Tried." });
    expect((await session.sendAndWait({ prompt: "add a hook" }))?.data.content).toBe("Tried.");
    expect(results).toEqual([
      {
        content:
          "bash: line 1: .git/hooks/pre-commit: Read-only file system\n<exited with exit code 1>\n" +
          "The sandbox stopped this command: the sandbox keeps .git/hooks read-only whatever the " +
          "settings: git runs the hooks there later, outside the sandbox (Read-only file system). " +
          `It was not run outside the sandbox: ${NO_HANDLER}create or resume the session with ` +
          'sandbox: "danger-full-access" (commands run without the sandbox, the only way to write ' +
          `that place)${OR_HANDLER}.`,
      },
    ]);
    await rm(join(fixture.cwd, ".git"), { recursive: true, force: true });
  },
);

/** Sends `prompt` in a new session of `client` whose model runs `command`; the tool results. */
async function resultsOf(
  client: ReturnType<typeof fixture.client>,
  config: Parameters<ReturnType<typeof fixture.client>["createSession"]>[0],
  command: string,
): Promise<unknown[]> {
  const session = await client.createSession(config);
  const results: unknown[] = [];
  session.on((event: WireEvent) => {
    if (event.type === "tool.execution_complete") {
      results.push(event.data.result);
    }
  });
  fixture.model.enqueue(callingTools(["call_1", "bash", { command }]), { text: "Done." });
  expect((await session.sendAndWait({ prompt: "run it" }))?.data.content).toBe("Done.");
  return results;
}

test.runIf(sandboxWorks)(
  "no handler: a command stopped for want of the network or of a writable workspace names the session config's or the server's setting",
  async () => {
    const client = fixture.client();
    const port = new URL(fixture.model.url).port;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    const offline = await resultsOf(
      client,
      { sandbox: "workspace-write", allowAllTools: true },
      probe,
    );
    const write = "echo x > made-here.txt";
    const readOnly = await resultsOf(client, { sandbox: "read-only", allowAllTools: true }, write);
    expect([...offline, ...readOnly]).toEqual([
      {
        content:
          `bash: connect: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/${port}: Connection refused\n` +
          "<exited with exit code 1>\n" +
          "The sandbox stopped this command: the sandbox has no network (Connection refused). It " +
          `was not run outside the sandbox: ${NO_HANDLER}start the server with --sandbox-network ` +
          `(sandboxed commands may use the network)${OR_HANDLER}.`,
      },
      {
        content:
          "bash: line 1: made-here.txt: Read-only file system\n<exited with exit code 1>\n" +
          "The sandbox stopped this command: the read-only sandbox lets it write only its private /tmp " +
          `(Read-only file system). It was not run outside the sandbox: ${NO_HANDLER}create or ` +
          'resume the session with sandbox: "workspace-write" (sandboxed commands may write in ' +
          `the workspace and the server's --add-dir folders)${OR_HANDLER}.`,
      },
    ]);
    expect(existsSync(join(fixture.cwd, "made-here.txt"))).toBe(false);
  },
);

test.runIf(sandboxWorks)(
  "the session config's sandbox chooses each session's policy, and each question about a command says where it runs",
  async () => {
    const client = fixture.client();
    const seen: Array<Pick<PermissionRequest, "kind" | "fullCommandText" | "sandbox">> = [];
    const onPermissionRequest = (request: PermissionRequest) => {
      seen.push({
        kind: request.kind,
        fullCommandText: request.fullCommandText,
        sandbox: request.sandbox,
      });
      // The question to run the stopped command outside the sandbox is refused.
      return request.sandbox?.outsideReason === undefined
        ? { kind: "approve-once" as const }
        : { kind: "reject" as const };
    };
    const confined = await client.createSession({
      sandbox: "workspace-write",
      onPermissionRequest,
      onSandboxBypassRequest: onPermissionRequest,
    });
    const open = await client.createSession({ onPermissionRequest });
    const confinedPath = modelWritesOutside("confined.txt", "Tried.");
    expect((await confined.sendAndWait({ prompt: "write it" }))?.data.content).toBe("Tried.");
    const openPath = modelWritesOutside("open.txt", "Wrote.");
    expect((await open.sendAndWait({ prompt: "write it" }))?.data.content).toBe("Wrote.");
    expect(seen).toEqual([
      {
        kind: "shell",
        fullCommandText: `echo x > ${confinedPath}`,
        sandbox: { policy: "workspace-write", network: false },
      },
      {
        kind: "shell",
        fullCommandText: `echo x > ${confinedPath}`,
        sandbox: {
          policy: "danger-full-access",
          network: true,
          outsideReason:
            "the sandbox lets it write only inside the workspace (Read-only file system)",
        },
      },
      {
        kind: "shell",
        fullCommandText: `echo x > ${openPath}`,
        sandbox: { policy: "danger-full-access", network: true },
      },
    ]);
    expect([existsSync(confinedPath), existsSync(openPath)]).toEqual([false, true]);
  },
);

test("a sandbox policy turnloop does not know fails createSession, naming the policies", async () => {
  const client = fixture.client();
  await expect(client.createSession({ sandbox: "everything" as "read-only" })).rejects.toThrow(
    'createSession: sandbox must be one of "read-only", "workspace-write", "danger-full-access", not "everything"',
  );
});

test.runIf(sandboxWorks)(
  "the official @github/copilot-sdk: a server started with --sandbox confines, its permission handler sees where the command runs, and a handler that approves never runs a stopped command outside",
  async () => {
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({
        path: CLI_PATH,
        env: fixture.env,
        args: ["--sandbox", "workspace-write"],
      }),
      workingDirectory: fixture.cwd,
    });
    await client.start();
    try {
      const seen: unknown[] = [];
      const session = await client.createSession({
        onPermissionRequest: (request) => {
          seen.push({ kind: request.kind, sandbox: (request as { sandbox?: unknown }).sandbox });
          return { kind: "approve-once" };
        },
      });
      const results: unknown[] = [];
      session.on("tool.execution_complete", (event) => results.push(event.data.result?.content));
      const escaped = modelWritesOutside("official.txt", "Tried.");
      const reply = await session.sendAndWait({ prompt: "write it" });
      expect(reply?.data.content).toBe("Tried.");
      expect(seen).toEqual([
        { kind: "shell", sandbox: { policy: "workspace-write", network: false } },
      ]);
      // The Copilot SDK sends no turnloop settings: it cannot register onSandboxBypassRequest.
      expect(results).toEqual([
        `bash: line 1: ${escaped}: Read-only file system\n<exited with exit code 1>\n` +
          "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
          `(Read-only file system). It was not run outside the sandbox: ${NO_HANDLER}start the ` +
          `server with --add-dir <folder> (sandboxed commands may write there too)${OR_HANDLER}.`,
      ]);
      expect(existsSync(escaped)).toBe(false);
      await session.disconnect();
    } finally {
      await client.stop();
    }
  },
);
