import { join } from "node:path";
import { describe, expect } from "vitest";
import { signalAtFirstDelta, whenFileExists } from "../support/cli.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

// A fresh user's trial: a `-p` cancelled by SIGTERM mid-reply wrote the cut reply (`# …`) to
// stdout in text mode, and put it in `result` with --output-format json, as if it were the
// answer. README: stdout carries only the final answer, and only a finished prompt is a success.
// Now the cut reply goes to stderr with the progress notes (text mode), and a cancelled prompt's
// `result` is empty (subtype error_cancelled, is_error true, stop_reason cancelled).

describe("-p cancelled by SIGTERM while the model is replying", () => {
  test("stream-json: the reply streamed, then the result says cancelled with no answer", async ({
    cli,
    model,
  }) => {
    const signalled = gate();
    model.enqueue({
      text: ["# Partial", " heading", " and more"],
      pause: { afterEvents: 2, until: signalled.opened },
    });
    const result = await cli(["-p", "write", "--output-format", "stream-json"], {
      onStart: signalAtFirstDelta(),
    });
    // The reply stays paused until turnloop drops the connection (the cancel).
    signalled.open();
    expect(result.code).toBe(143);
    const lines = result.stdout.trim().split("\n");
    const last = JSON.parse(lines.at(-1) ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({
      type: "result",
      subtype: "error_cancelled",
      is_error: true,
      result: "",
      stop_reason: "cancelled",
    });
    const message = lines
      .map((line) => JSON.parse(line) as { type: string; data?: { content?: string } })
      .find((event) => event.type === "assistant.message");
    expect(message?.data?.content).toMatch(/^# Partial/);
  });

  test.for(["text", "json"] as const)(
    "%s: stdout holds no cut reply",
    async (format, { cli, model, loggedEvents }) => {
      const signalled = gate();
      model.setResponder(() => {
        return {
          text: ["# Partial", " heading", " and more"],
          pause: { afterEvents: 2, until: signalled.opened },
        };
      });
      const result = await cli(["-p", "write", "--output-format", format], {
        onStart: (child) => {
          // The gate: the model has the request (the reply's first pieces are on their way).
          const poll = setInterval(() => {
            if (model.requests.length > 0) {
              clearInterval(poll);
              child.kill("SIGTERM");
            }
          }, 20);
          child.once("exit", () => clearInterval(poll));
        },
      });
      signalled.open();
      expect(result.code).toBe(143);
      if (format === "json") {
        expect(JSON.parse(result.stdout)).toMatchObject({
          subtype: "error_cancelled",
          is_error: true,
          result: "",
          stop_reason: "cancelled",
        });
        return;
      }
      expect(result.stdout).toBe("");
      const id = printedSessionId(result.stderr);
      const events = await loggedEvents(id);
      const cut = events.find((event) => event.type === "assistant.message")?.data.content;
      const lines = result.stderr.split("\n");
      expect(lines.slice(0, -2)).toEqual([
        ...(typeof cut === "string" && cut !== "" ? [cut] : []),
        "cancelled by SIGTERM",
      ]);
    },
  );
});

describe("-p cancelled by a signal while a command runs", () => {
  test("the cut command's result names the signal, as the abort does", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    model.enqueue({
      toolCalls: [
        {
          id: "call_1",
          name: "bash",
          arguments: JSON.stringify({ command: "touch started; sleep 30" }),
        },
      ],
    });
    const result = await cli(["-p", "wait", "--allow-all-tools"], {
      onStart: (child) =>
        whenFileExists(join(repository, "started"), child, () => child.kill("SIGTERM")),
    });
    expect(result.code).toBe(143);
    const events = await loggedEvents(printedSessionId(result.stderr));
    const ends = events
      .filter((event) => event.type === "tool.execution_complete" || event.type === "abort")
      .map((event) => ({ type: event.type, data: event.data }));
    const content = "Command cancelled; its process group was killed.\n[cancelled by SIGTERM]";
    expect(ends).toEqual([
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "bash",
          success: false,
          result: { content },
          error: { message: content, code: "cancelled" },
        },
      },
      { type: "abort", data: { reason: "cancelled by SIGTERM" } },
    ]);
  });
});
