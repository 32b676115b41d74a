/**
 * A synthetic `events.jsonl` of many turns, for the session-view benchmark and tests: one prompt
 * per 50 turns; each turn a reply of a few sentences with one tool call (a `view` with about 1 KB
 * of file content; every 7th a failed `bash`, every 11th an `edit` asked for and allowed), its
 * usage and cost; a compaction every 2,000 turns. Turns are 1.5 s apart (ms timestamps).
 */

const BASE = Date.parse("2026-01-01T09:00:00.000Z");
const FILE_TEXT = Array.from(
  { length: 24 },
  (_, line) => `${line + 1}. const value${line} = compute(${line}); // line of the file`,
).join("\n");

/**
 * @param {number} turns
 * @returns {string} the log, one JSON event per line, each ending in `\n`
 */
export function longSessionLog(turns) {
  const lines = [];
  let previous = null;
  let sequence = 0;
  const add = (ms, type, data) => {
    const id = `ev-${++sequence}`;
    lines.push(
      JSON.stringify({
        type,
        data,
        id,
        timestamp: new Date(BASE + ms).toISOString(),
        parentId: previous,
      }),
    );
    previous = id;
  };
  add(0, "session.start", {
    sessionId: "long-session",
    version: 1,
    producer: "turnloop",
    producerVersion: "0.1.0",
    startTime: new Date(BASE).toISOString(),
    cwd: "/work/project",
    model: "openai:gpt-5",
  });
  let context = 4000;
  for (let turn = 1; turn <= turns; turn += 1) {
    const at = turn * 1500;
    if (turn % 50 === 1) {
      add(at - 10, "user.message", {
        content: `Step ${Math.ceil(turn / 50)}: refactor the next module and keep the tests green.`,
        source: "user",
      });
    }
    const turnId = `turn-${turn}`;
    const callId = `call-${turn}`;
    const name = turn % 7 === 0 ? "bash" : turn % 11 === 0 ? "edit" : "view";
    const args =
      name === "bash"
        ? { command: "npm test -- --run" }
        : name === "edit"
          ? { path: `src/module-${turn}.ts`, old_str: "const a = 1;", new_str: "const a = 2;" }
          : { path: `src/module-${turn}.ts` };
    add(at, "assistant.turn_start", { turnId });
    add(at + 600, "assistant.message", {
      messageId: `message-${turn}`,
      content: `Turn ${turn}: I read the module and will now look at the next file to see how the function is used.`,
      toolRequests: [{ toolCallId: callId, name, arguments: args }],
      finishReason: "tool-calls",
    });
    context += 900;
    add(at + 601, "assistant.usage", {
      model: "openai:gpt-5",
      turnId,
      inputTokens: context,
      outputTokens: 80,
      cacheReadTokens: context - 900,
      cost: context * 1.25e-6 + 80 * 1e-5,
    });
    add(at + 602, "tool.execution_start", { toolCallId: callId, toolName: name, arguments: args });
    if (name === "edit") {
      add(at + 603, "permission.requested", {
        requestId: `permission-${turn}`,
        toolCallId: callId,
        toolName: "edit",
        kind: "edit",
        title: `Edit src/module-${turn}.ts`,
      });
      add(at + 900, "permission.completed", {
        requestId: `permission-${turn}`,
        toolCallId: callId,
        decision: "allowed",
        scope: "once",
      });
    }
    const failed = name === "bash";
    add(
      at + 950,
      "tool.execution_complete",
      failed
        ? {
            toolCallId: callId,
            toolName: name,
            success: false,
            result: { content: "1 test failed: expected 2, got 1" },
            error: { message: "exit code 1", code: "failed" },
          }
        : { toolCallId: callId, toolName: name, success: true, result: { content: FILE_TEXT } },
    );
    add(at + 955, "assistant.turn_end", {
      turnId,
      status: "completed",
      finishReason: "tool-calls",
    });
    if (turn % 2000 === 0) {
      add(at + 960, "session.compaction_start", {
        trigger: "threshold",
        currentTokens: context,
        tokenLimit: context + 1000,
      });
      add(at + 1400, "session.compaction_complete", {
        success: true,
        preCompactionTokens: context,
        postCompactionTokens: 6000,
        messagesRemoved: 4000,
        summaryContent: "Summary of the refactoring so far.",
      });
      context = 6000;
    }
  }
  return `${lines.join("\n")}\n`;
}
