import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { requireSandbox } from "../support/sandbox.js";
import { AcpHarness, requestMessages } from "./support.js";

/**
 * Issue 23's "done when", over ACP: autopilot with the `workspace-write` sandbox and permission
 * mode `auto` finishes a multi-step task (edit, run the tests, fix, run them again) with no
 * question asked and nothing written outside the workspace; the same run where a command needs
 * the network asks exactly once, to run that command outside the sandbox, with the reason shown.
 * The folder outside the workspace is under /var/tmp: the sandbox's /tmp is its own.
 */

const sandboxWorks = await requireSandbox();
let outside: string;

beforeEach(async () => {
  outside = await mkdtemp(join("/var/tmp", "turnloop-acp-sandbox-outside-"));
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

function call(id: string, name: string, input: Record<string, unknown>) {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(input) }] };
}

/** The tool results the model was sent by its last request, in order. */
function toolResults(current: AcpHarness): unknown[] {
  return requestMessages(current.server, -1)
    .filter((message) => message.role === "tool")
    .map((message) => message.content);
}

function permissionRequests(current: AcpHarness): unknown[] {
  return current.behaviour.calls
    .filter((entry) => entry.method === "session/request_permission")
    .map((entry) => entry.params);
}

const TEST_COMMAND = 'test "$(bash add.sh 2 3)" = 5 && echo PASS || { echo FAIL; exit 1; }';

describe.runIf(sandboxWorks)("autopilot, --sandbox workspace-write, permission mode auto", () => {
  test("edit, run the tests, fix, run them again: no question, nothing written outside", async () => {
    const harness = await AcpHarness.start({
      face: { autopilot: true, sandbox: "workspace-write" },
    });
    const escaped = join(outside, "cache.txt");
    harness.server.enqueue(
      call("call_1", "create", { path: "add.sh", file_text: "echo $(( $1 - $2 ))\n" }),
      // A write outside whose failure the command hides: nothing to ask about, nothing written.
      call("call_2", "bash", {
        command: `{ echo cache > ${escaped}; } 2>/dev/null; ${TEST_COMMAND}`,
      }),
      call("call_3", "edit", { path: "add.sh", old_str: "$1 - $2", new_str: "$1 + $2" }),
      call("call_4", "bash", { command: TEST_COMMAND }),
      call("call_5", "task_complete", { summary: "add.sh adds" }),
    );
    const sessionId = await harness.newSession();
    const answer = await harness.prompt(sessionId, "make add.sh add, with its test passing");
    expect(answer.stopReason).toBe("end_turn");
    expect(permissionRequests(harness)).toEqual([]);
    const current = harness;
    expect(toolResults(current)).toEqual([
      `Created file ${join(current.cwd, "add.sh")} with 20 characters`,
      "FAIL\n<exited with exit code 1>",
      expect.stringMatching(/^File .*add\.sh updated with changes\.\n\n/),
      "PASS\n<exited with exit code 0>",
    ]);
    expect(await readFile(join(harness.cwd, "add.sh"), "utf8")).toBe("echo $(( $1 + $2 ))\n");
    expect(existsSync(escaped)).toBe(false);
  });

  test("a command that needs the network asks exactly once, to run it outside the sandbox", async () => {
    const harness = await AcpHarness.start({
      face: { autopilot: true, sandbox: "workspace-write" },
    });
    const port = new URL(harness.server.url).port;
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    harness.server.enqueue(
      call("call_1", "bash", { command: "echo ok > inside.txt" }),
      call("call_2", "bash", { command }),
      call("call_3", "task_complete", { summary: "connected" }),
    );
    const sessionId = await harness.newSession();
    const answer = await harness.prompt(sessionId, "check the server answers");
    expect(answer.stopReason).toBe("end_turn");
    const reason = "the sandbox has no network (Connection refused)";
    expect(permissionRequests(harness)).toEqual([
      {
        sessionId,
        toolCall: expect.objectContaining({
          toolCallId: "call_2",
          status: "pending",
          title: `Run outside the sandbox: ${command} [outside the sandbox: ${reason}]`,
        }),
        options: [
          { optionId: "allow_once", name: "Allow", kind: "allow_once" },
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ],
        _meta: {
          "turnloop/sandbox": {
            policy: "danger-full-access",
            network: true,
            outsideReason: reason,
          },
        },
      },
    ]);
    expect(toolResults(harness)).toEqual([
      "<exited with exit code 0>",
      `The sandbox stopped this command (${reason}); the user allowed it to run again outside ` +
        "the sandbox:\nconnected\n<exited with exit code 0>",
    ]);
  });
});

describe.runIf(sandboxWorks)("a session's additionalDirectories", () => {
  test("under /tmp: seen and writable in the sandbox as the workspace is, not hidden by its private /tmp", async () => {
    const harness = await AcpHarness.start({
      face: { permissionMode: "auto", sandbox: "workspace-write" },
    });
    const extra = await mkdtemp(join("/tmp", "turnloop-acp-additional-"));
    try {
      await writeFile(join(extra, "notes.txt"), "granted\n");
      const command = `cat ${extra}/notes.txt && mkdir -p ${extra}/out && echo made > ${extra}/out/made.txt`;
      harness.server.enqueue(call("call_1", "bash", { command }), { text: "done" });
      const { sessionId } = await harness.client.request(acp.methods.agent.session.new, {
        cwd: harness.cwd,
        mcpServers: [],
        additionalDirectories: [extra],
      });
      expect(await harness.prompt(sessionId, "use the notes")).toEqual({ stopReason: "end_turn" });
      expect([
        toolResults(harness),
        await readFile(join(extra, "out", "made.txt"), "utf8"),
      ]).toEqual([["granted\n<exited with exit code 0>"], "made\n"]);
      expect(permissionRequests(harness)).toEqual([]);
    } finally {
      await rm(extra, { recursive: true, force: true });
    }
  });
});

describe.runIf(sandboxWorks)("the sandbox config option", () => {
  test("offered beside mode and model; choosing read-only confines the next prompt's commands", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    const answer = await harness.setConfigOption(sessionId, "sandbox", "read-only");
    expect(answer.configOptions.map((option) => [option.id, option.currentValue])).toEqual([
      ["mode", "ask"],
      ["model", "openai-compatible:fake-model"],
      ["sandbox", "read-only"],
    ]);
    // The user allows the command, then refuses to run it outside the sandbox.
    harness.behaviour.answerPermission = async (params) => ({
      outcome: {
        outcome: "selected",
        optionId: params.toolCall.title?.startsWith("Run outside") ? "reject_once" : "allow_once",
      },
    });
    harness.server.enqueue(call("call_1", "bash", { command: "echo x > made.txt" }), {
      text: "done",
    });
    await harness.prompt(sessionId, "write it");
    const [question] = permissionRequests(harness) as acp.RequestPermissionRequest[];
    expect(question?.toolCall.title).toBe("Run echo x > made.txt [sandbox: read-only, no network]");
    expect(toolResults(harness)).toEqual([
      `bash: line 1: made.txt: Read-only file system\n<exited with exit code 1>\n` +
        "The sandbox stopped this command: the read-only sandbox lets it write only its private " +
        "/tmp (Read-only file system). It was not run outside the sandbox: the user declined this " +
        "call.",
    ]);
    // The editor sees the output, the sandbox's note and the exit code: not the model's exit line.
    expect(
      harness
        .updates(sessionId)
        .filter((update) => "status" in update && update.status === "failed"),
    ).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "failed",
        content: [
          {
            type: "content",
            content: {
              type: "text",
              text:
                "bash: line 1: made.txt: Read-only file system\n" +
                "The sandbox stopped this command: the read-only sandbox lets it write only its " +
                "private /tmp (Read-only file system). It was not run outside the sandbox: the " +
                "user declined this call.\nexit code 1",
            },
          },
        ],
        rawOutput: { outcome: "failed (exit code 1)" },
      },
    ]);
    expect(existsSync(join(harness.cwd, "made.txt"))).toBe(false);
  });

  test("an unknown policy is refused with the choices", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await expect(harness.setConfigOption(sessionId, "sandbox", "loose")).rejects.toMatchObject({
      code: -32602,
      message:
        'session/set_config_option: value: expected one of read-only, workspace-write, danger-full-access, not "loose"',
    });
  });
});
