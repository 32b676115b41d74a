/**
 * In-page script, part 3: the details panel of a selected turn or prompt — the full message and
 * reasoning, each tool's arguments and result (long ones folded), an edit's diff, the permission
 * question and answer, and every mark with its text.
 */
export const PAGE_DETAILS_SCRIPT = String.raw`
var FOLD_CHARACTERS = 1200;
var FOLD_LINES = 16;

function block(label, text, className) {
  var value = String(text === undefined || text === null ? "" : text);
  var lines = value.split("\n").length;
  var pre = element("pre", { class: className || "text", text: value });
  if (value.length <= FOLD_CHARACTERS && lines <= FOLD_LINES) {
    return element("div", { class: "block" }, [element("h4", { text: label }), pre]);
  }
  return element("details", { class: "block folded" }, [
    element("summary", { text: label + " (" + formatNumber(value.length) + " characters, " + formatNumber(lines) + " lines)" }),
    pre,
  ]);
}

// An edit's change as the session model gives every face (tool.change: session-model/
// edit-change.ts), numbered in its file when the log has the file's change; a create's text.
function diffBlock(tool) {
  var args = tool.arguments || {};
  var rows;
  if (tool.name === "edit" && tool.change) {
    rows = tool.change;
  } else if (tool.name === "create" && typeof args.file_text === "string") {
    rows = args.file_text.split("\n").map(function (line) { return { marker: "+", gutter: "", text: line }; });
  } else {
    return null;
  }
  var pre = element("pre", { class: "diff" }, rows.map(function (row) {
    var kind = row.marker === "+" ? "added" : row.marker === "-" ? "removed" : row.marker === " " ? "context" : "note";
    return element("span", { class: kind, text: row.gutter + (row.marker || " ") + " " + row.text + "\n" });
  }));
  return element("div", { class: "block" }, [element("h4", { text: "diff of " + (args.path || "?") }), pre]);
}

function permissionBlock(permission) {
  if (!permission) return null;
  var answer = permission.decision === undefined ? "no answer in the log" :
    permission.decision + (permission.scope ? " (" + permission.scope + ")" : "") +
    (permission.rule ? " by rule " + permission.rule : "") + (permission.reason ? ": " + permission.reason : "");
  var waited = permission.completed !== undefined ? " after " + formatDuration(permission.completed - permission.requested) : "";
  return element("div", { class: "block permission", "data-decision": permission.decision }, [
    element("h4", { text: "permission" }),
    element("p", { class: "question", text: "asked (" + (permission.kind || "?") + "): " + (permission.title || "?") }),
    element("p", { class: "answer", text: "answer" + waited + ": " + answer }),
  ]);
}

// How a call went wrong, outside its output: "error (code): message" for a one-line message; a
// longer one (a command's output) in a block, unless it is the result shown below it.
function errorBlocks(tool) {
  if (!tool.errorMessage) return [];
  var outcome = "error" + (tool.errorCode ? " (" + tool.errorCode + ")" : "");
  if (tool.errorMessage.indexOf("\n") < 0) {
    return [element("p", { class: "error", text: outcome + ": " + tool.errorMessage })];
  }
  if (tool.errorMessage === tool.result) {
    return [element("p", { class: "error", text: outcome + "; the result below is the output the model got" })];
  }
  return [element("p", { class: "error", text: outcome + ":" }), block("error message", tool.errorMessage, "result")];
}

function toolDetails(turn, tool) {
  var duration = tool.durationMs !== undefined ? formatDuration(tool.durationMs) :
    tool.start !== undefined && tool.end !== undefined ? formatDuration(tool.end - tool.start) : "not finished";
  var args = typeof tool.arguments === "string" ? tool.arguments : JSON.stringify(tool.arguments, null, 2);
  return element("section", { class: "tool-details", id: "tool-" + tool.toolCallId, "data-tool-call-id": tool.toolCallId,
    "data-status": tool.status }, [
    element("h3", { text: tool.name + " · " + (tool.outcome || tool.status) + (tool.outsideSandbox ? " · " + tool.outsideSandbox : "") + " · " + duration }),
    element("p", { class: "meta", text: "call " + tool.toolCallId + (tool.start !== undefined ? " · started at +" + formatDuration(tool.start - turn.requestAt) + " into the turn" : "") }),
    block(tool.argumentsError ? "arguments (" + tool.argumentsError + ", as streamed)" : "arguments", args, "arguments"),
    diffBlock(tool),
    permissionBlock(tool.permission),
  ].concat(errorBlocks(tool), [
    tool.result !== undefined ? block("result", tool.result, "result") : element("p", { class: "meta", text: "no result in the log" }),
    tool.imageCount ? element("p", { class: "meta", text: tool.imageCount + (tool.imageCount === 1 ? " image" : " images") + " returned (not included in this file)" }) : null,
  ]).filter(Boolean));
}

// An offset from the session's or turn's start: "+6 ms" after it, "6 ms before the request"
// before it (a compaction just before the request it is listed with), never "−6 ms".
function formatOffset(ms) {
  return ms < 0 ? formatDuration(-ms) + " before the request" : "+" + formatDuration(ms);
}

function marksList(marks, origin) {
  if (marks.length === 0) return null;
  return element("ul", { class: "marks" }, marks.map(function (mark) {
    return element("li", { "data-kind": mark.kind }, [
      element("span", { class: "mark-kind", text: mark.kind }),
      " " + formatOffset(mark.at - origin) + " " + mark.text,
      mark.detail ? block("details", mark.detail, "text") : null,
    ]);
  }));
}

function timesLine(turn) {
  var parts = ["request sent at +" + formatDuration(turn.requestAt)];
  parts.push(turn.firstTokenAt !== undefined ? "first token after " + formatDuration(turn.firstTokenAt - turn.requestAt) : "first token not recorded");
  if (turn.lastTokenAt !== undefined) parts.push("last token after " + formatDuration(turn.lastTokenAt - turn.requestAt));
  parts.push(turn.endAt !== undefined ? "turn_end after " + formatDuration(turn.endAt - turn.requestAt) : "no turn_end");
  return parts.join(" · ");
}

function turnDetails(turn) {
  var usage = turn.usage || {};
  return [
    element("h2", { text: turn.title + (turn.betweenPrompts ? " (manual, between prompts, after prompt " : " (prompt ") +
      turn.prompt + ")" + (turn.purpose ? " · " + turn.purpose : "") }),
    element("p", { class: "meta", text: [turn.status, turn.finishReason && "finish: " + turn.finishReason,
      turn.errorType && "error: " + turn.errorType, turn.model].filter(Boolean).join(" · ") }),
    element("p", { class: "meta", text: timesLine(turn) }),
    element("p", { class: "meta", text: turn.usage === undefined ? "tokens: no usage in the log" : "tokens: " + formatNumber(usage.input) + " in, " + formatNumber(usage.output) + " out, " +
      formatNumber(usage.cacheRead) + " cached" + (turn.cost !== undefined ? " · " + formatCost(turn.cost) : "") }),
    marksList(turn.marks, turn.requestAt),
    turn.reasoning ? block("reasoning", turn.reasoning, "reasoning") : null,
    turn.content !== undefined ? block(turn.interrupted ? "message (interrupted)" : "message", turn.content, "message") :
      element("p", { class: "meta", text: turn.status === "failed" || turn.status === "error" ?
        "no reply: the request failed" + (turn.errorType ? " (" + turn.errorType + ")" : "") +
        (turn.marks.some(function (mark) { return mark.kind === "retry"; }) ? "; it was retried as the next turn" : "") :
        "no reply in the log" }),
  ].concat(turn.tools.map(function (tool) { return toolDetails(turn, tool); }));
}

function compactionDetails(compaction) {
  return [
    element("h2", { text: "Compaction after turn " + compaction.afterTurn + (compaction.success === false ? " · failed" : "") }),
    element("p", { class: "meta", text: [compaction.trigger && "trigger: " + compaction.trigger,
      formatNumber(compaction.tokensBefore) + " → " + formatNumber(compaction.tokensAfter) + " tokens",
      compaction.messagesRemoved !== undefined && compaction.messagesRemoved + " messages removed"].filter(Boolean).join(" · ") }),
    compaction.summary !== undefined ? block("summary the model is given from here on", compaction.summary, "message") :
      element("p", { class: "meta", text: "no summary in the log" }),
  ];
}

// What the model got with a prompt besides its text, each in a block named for what it is (the
// Markdown export's words: markdown.ts sentWithPrompt).
function sentBlocks(prompt) {
  var sent = " (sent to the model with the prompt)";
  var labels = { file: "attached file ", stdin: "piped stdin", resource: "attached resource ", other: "attached text" };
  return (prompt.commands || []).map(function (run) {
    return block("output of !" + run.command + " (" + run.ending + ")" + sent, run.output, "result");
  }).concat((prompt.attachments || []).map(function (attachment) {
    var label = labels[attachment.kind] || "attached ";
    return block(label + (label.slice(-1) === " " ? attachment.name : "") + sent, attachment.text, "text");
  }));
}

function showDetails(row, toolCallId) {
  var panel = document.getElementById("details");
  var children = row.turn ? turnDetails(row.turn) : row.compaction ? compactionDetails(row.compaction) : [
    element("h2", { text: "Prompt " + row.prompt.index + " · " + row.prompt.stopReason }),
    marksList(row.prompt.marks, 0),
    block("prompt", row.prompt.content, "message"),
  ].concat(sentBlocks(row.prompt), [
    row.prompt.closingMarks.length > 0 ? element("p", { class: "meta", text: "after its last turn:" }) : null,
    marksList(row.prompt.closingMarks, 0),
  ]);
  panel.replaceChildren.apply(panel, children.filter(Boolean));
  var target = toolCallId && document.getElementById("tool-" + toolCallId);
  if (target) {
    target.classList.add("focused");
    target.scrollIntoView({ block: "nearest" });
  }
}
`;
