import {
  approveAll,
  type CopilotClient,
  type CopilotSession,
  defineTool,
  type PermissionHandler,
  type PermissionRequest,
  type SessionHooks,
} from "@github/copilot-sdk";
import { beforeAll, describe, expect, test } from "vitest";
import type { Reply } from "../support/fake-model-types.js";
import { callingTools } from "../support/replies.js";
import { chatBody, fixtureForFile, startCopilotClient } from "./support.js";

/**
 * The post-tool hooks of an app written for the Copilot SDK fire as the Copilot CLI fires them
 * (the Copilot SDK's `SessionHooks`: `onPostToolUse` only for a `success`, `onPostToolUseFailure`
 * only for a `failure`, not for `rejected`, `denied` or `timeout`), and agree with the
 * `tool.execution_complete` every face reads: a `bash` command that exits non-zero or is killed
 * failed. The whole list of hook calls is compared, in order, with their inputs.
 */

const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  client = await startCopilotClient(fixture, []);
});

type HookCall = [hook: string, input: Record<string, unknown>];

/**
 * Hooks that record every call (without the fields every input has) and answer: `preToolUse`
 * denies a command containing "denied" and otherwise lets the permission handler decide;
 * `postToolUse` and `postToolUseFailure` give context naming the tool.
 */
function recordingHooks(calls: HookCall[]): SessionHooks {
  const record =
    (hook: string) =>
    (input: object): undefined => {
      const {
        timestamp: _t,
        workingDirectory: _w,
        sessionId: _s,
        ...rest
      } = input as Record<string, unknown>;
      calls.push([hook, rest]);
      return undefined;
    };
  return {
    onPreToolUse: (input) => {
      record("preToolUse")(input);
      const { command } = input.toolArgs as { command?: string };
      return command?.includes("denied") === true
        ? { permissionDecision: "deny", permissionDecisionReason: "not this one" }
        : undefined;
    },
    onPostToolUse: (input) => {
      record("postToolUse")(input);
      return { additionalContext: `(after ${input.toolName})` };
    },
    onPostToolUseFailure: (input) => {
      record("postToolUseFailure")(input);
      return { additionalContext: `(${input.toolName} failed)` };
    },
  };
}

/** Approves every request, except a command containing "rejected". */
function approvingBut(request: PermissionRequest) {
  const command = (request as { fullCommandText?: string }).fullCommandText ?? "";
  return { kind: command.includes("rejected") ? ("reject" as const) : ("approve-once" as const) };
}

/** An app's tool that answers Copilot's result object with the `resultType` it is given. */
function answerTool() {
  return defineTool("answer", {
    parameters: {
      type: "object",
      properties: { resultType: { type: "string" } },
      required: ["resultType"],
    },
    handler: ({ resultType }: { resultType: string }) => ({
      textResultForLlm: `answered ${resultType}`,
      resultType: resultType as "success",
    }),
  });
}

/**
 * A session of the file's client asking `onPermissionRequest`, offering the app's `answer` tool
 * ({@link answerTool}) when `withAnswerTool`, its hooks recording into `calls` ({@link recordingHooks}).
 */
async function recordedSession(onPermissionRequest: PermissionHandler, withAnswerTool: boolean) {
  const calls: HookCall[] = [];
  const session = await client.createSession({
    onPermissionRequest,
    ...(withAnswerTool ? { tools: [answerTool()] } : {}),
    hooks: recordingHooks(calls),
  });
  return { session, calls };
}

/**
 * Queues `replies`, sends "go" and waits for its end. @returns the tool names the model's first
 * request offered and the messages of the next one (what the model read after the calls).
 */
async function goAndRead(session: CopilotSession, ...replies: Reply[]) {
  const from = fixture.model.requests.length;
  fixture.model.enqueue(...replies);
  await session.sendAndWait({ prompt: "go" });
  const offered = (chatBody(fixture.model.requests[from]).tools ?? []).map(
    (tool) => tool.function.name,
  );
  return { offered, next: chatBody(fixture.model.requests[from + 1]).messages };
}

const guidance = (tool: string) =>
  `Tool "${tool}" failed. Additional guidance from postToolUseFailure hooks:\n(${tool} failed)`;

/** The messages after the last tool result of a request's `messages`. */
function afterResults(messages: ReadonlyArray<{ role: string }>) {
  return messages.slice(messages.findLastIndex((message) => message.role === "tool") + 1);
}

/** The user messages of the failure hooks' guidance for `tools`, in order. */
const guidanceFor = (...tools: string[]) =>
  tools.map((tool) => ({ role: "user", content: guidance(tool) }));

describe("post-tool hooks", () => {
  test("success, a failed command, a denied call, a timed-out command, a killed command, an unknown tool: the hooks each gets", async () => {
    const { session, calls } = await recordedSession(approvingBut, false);
    const { offered, next } = await goAndRead(
      session,
      callingTools(
        ["call_ok", "bash", { command: "echo fine" }],
        ["call_exit", "bash", { command: "echo out; exit 4" }],
        ["call_denied", "bash", { command: "echo denied" }],
        ["call_timeout", "bash", { command: "echo started; sleep 30", timeout: 1 }],
        ["call_killed", "bash", { command: "kill -9 $$" }],
        ["call_missing", "no_such_tool", { q: 1 }],
      ),
      { text: "done" },
    );
    const missing = `Tool 'no_such_tool' does not exist. Available tools that can be called are ${offered.join(", ")}.`;
    expect(calls).toEqual([
      ["preToolUse", { toolName: "bash", toolArgs: { command: "echo fine" } }],
      [
        "postToolUse",
        {
          toolName: "bash",
          toolArgs: { command: "echo fine" },
          toolResult: {
            textResultForLlm: "fine\n<exited with exit code 0>",
            resultType: "success",
          },
        },
      ],
      ["preToolUse", { toolName: "bash", toolArgs: { command: "echo out; exit 4" } }],
      [
        "postToolUseFailure",
        {
          toolName: "bash",
          toolArgs: { command: "echo out; exit 4" },
          error: "out\n<exited with exit code 4>",
        },
      ],
      ["preToolUse", { toolName: "bash", toolArgs: { command: "echo denied" } }],
      [
        "preToolUse",
        { toolName: "bash", toolArgs: { command: "echo started; sleep 30", timeout: 1 } },
      ],
      ["preToolUse", { toolName: "bash", toolArgs: { command: "kill -9 $$" } }],
      [
        "postToolUseFailure",
        {
          toolName: "bash",
          toolArgs: { command: "kill -9 $$" },
          error: "<exited after signal SIGKILL>",
        },
      ],
      ["preToolUse", { toolName: "no_such_tool", toolArgs: { q: 1 } }],
      ["postToolUseFailure", { toolName: "no_such_tool", toolArgs: { q: 1 }, error: missing }],
    ]);

    // What the model read next: the results (a success with its context appended), then the
    // failure hooks' guidance, in call order, after the batch's results.
    const results = next.flatMap((message) =>
      message.role === "tool" ? [[message.tool_call_id, message.content]] : [],
    );
    expect(results).toEqual([
      ["call_ok", "fine\n<exited with exit code 0>\n\n(after bash)"],
      ["call_exit", "out\n<exited with exit code 4>"],
      ["call_denied", "Permission denied for 'bash': Denied by preToolUse hook: not this one"],
      ["call_timeout", expect.stringMatching(/^started\nCommand timed out after 1 s; /)],
      ["call_killed", "<exited after signal SIGKILL>"],
      ["call_missing", missing],
    ]);
    expect(afterResults(next)).toEqual(guidanceFor("bash", "bash", "no_such_tool"));
    await session.disconnect();
  });

  test("a call the user rejects, and an app's tool that answers rejected, get no post-tool hook", async () => {
    const { session, calls } = await recordedSession(approvingBut, true);
    // A rejection ends the prompt: no further model request.
    fixture.model.enqueue(callingTools(["call_rejected", "bash", { command: "echo rejected" }]));
    await session.sendAndWait({ prompt: "go" });
    fixture.model.enqueue(callingTools(["call_r", "answer", { resultType: "rejected" }]));
    await session.sendAndWait({ prompt: "again" });
    expect(calls).toEqual([
      ["preToolUse", { toolName: "bash", toolArgs: { command: "echo rejected" } }],
      ["preToolUse", { toolName: "answer", toolArgs: { resultType: "rejected" } }],
    ]);
    await session.disconnect();
  });

  test("an app's tool: success, failure, denied and timeout answers, each as Copilot hooks it", async () => {
    const { session, calls } = await recordedSession(approveAll, true);
    const { next } = await goAndRead(
      session,
      callingTools(
        ["call_s", "answer", { resultType: "success" }],
        ["call_f", "answer", { resultType: "failure" }],
        ["call_d", "answer", { resultType: "denied" }],
        ["call_t", "answer", { resultType: "timeout" }],
      ),
      { text: "done" },
    );
    const pre = (resultType: string) => [
      "preToolUse",
      { toolName: "answer", toolArgs: { resultType } },
    ];
    // An app's tools run side by side: the pre-tool hooks come in call order, the post-tool
    // hooks as the answers come (sorted here).
    const posts = calls.slice(4).sort(([a], [b]) => a.localeCompare(b));
    expect([...calls.slice(0, 4), ...posts]).toEqual([
      pre("success"),
      pre("failure"),
      pre("denied"),
      pre("timeout"),
      [
        "postToolUse",
        {
          toolName: "answer",
          toolArgs: { resultType: "success" },
          toolResult: { textResultForLlm: "answered success", resultType: "success" },
        },
      ],
      [
        "postToolUseFailure",
        { toolName: "answer", toolArgs: { resultType: "failure" }, error: "answered failure" },
      ],
    ]);
    expect(next.at(-1)).toEqual({ role: "user", content: guidance("answer") });
    await session.disconnect();
  });

  test("calls with bad arguments (an app's tool, a built-in, no JSON) get preToolUse, then postToolUseFailure", async () => {
    const { session, calls } = await recordedSession(approveAll, true);
    const { next } = await goAndRead(
      session,
      {
        toolCalls: [
          { id: "call_app", name: "answer", arguments: '{"resultType":3}' },
          { id: "call_view", name: "view", arguments: '{"path":5}' },
          { id: "call_json", name: "bash", arguments: '{"command": "echo' },
        ],
      },
      { text: "done" },
    );
    const read = new Map(
      next.flatMap((message) =>
        message.role === "tool" ? [[message.tool_call_id, String(message.content)]] : [],
      ),
    );
    expect([...read.keys()]).toEqual(["call_app", "call_view", "call_json"]);
    expect(read.get("call_app")).toMatch(/^Invalid arguments for 'answer': /);
    expect(read.get("call_view")).toMatch(/^Invalid arguments for 'view': /);
    expect(calls).toEqual([
      ["preToolUse", { toolName: "answer", toolArgs: { resultType: 3 } }],
      [
        "postToolUseFailure",
        { toolName: "answer", toolArgs: { resultType: 3 }, error: read.get("call_app") },
      ],
      ["preToolUse", { toolName: "view", toolArgs: { path: 5 } }],
      [
        "postToolUseFailure",
        { toolName: "view", toolArgs: { path: 5 }, error: read.get("call_view") },
      ],
      ["preToolUse", { toolName: "bash", toolArgs: {} }],
      ["postToolUseFailure", { toolName: "bash", toolArgs: {}, error: read.get("call_json") }],
    ]);
    expect(afterResults(next)).toEqual(guidanceFor("answer", "view", "bash"));
    await session.disconnect();
  });
});
