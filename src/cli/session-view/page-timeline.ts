/**
 * In-page script, part 2: the timeline (one row per prompt and per turn, only the rows in view
 * are in the DOM, so 10,000 turns draw as fast as 20) and the entry point `main`. Uses the
 * helpers of part 1 (page-summary.ts) and the details panel of part 3 (page-details.ts).
 */

import { manualCompactionWords } from "../../session/session-model/session-model.js";

export const PAGE_TIMELINE_SCRIPT = String.raw`
var ROW_HEIGHT = 28;
var MANUAL_COMPACTION_WORDS = ${JSON.stringify(manualCompactionWords())};
var OVERSCAN = 12;

function timelineRows(view) {
  var rows = [], next = 0, compactions = {};
  view.compactions.forEach(function (compaction) {
    (compactions[compaction.afterTurn] = compactions[compaction.afterTurn] || []).push({ compaction: compaction });
  });
  var pushTurn = function (turn) {
    // A compaction the user started between prompts: headed apart from the prompt before it.
    if (turn.betweenPrompts) rows.push({ between: turn });
    rows.push({ turn: turn });
    rows.push.apply(rows, compactions[turn.index] || []);
  };
  view.prompts.forEach(function (prompt) {
    rows.push({ prompt: prompt });
    if (prompt.index === 1) rows.push.apply(rows, compactions[0] || []);
    while (next < view.turns.length && view.turns[next].prompt === prompt.index) {
      pushTurn(view.turns[next]);
      next += 1;
    }
  });
  for (; next < view.turns.length; next += 1) pushTurn(view.turns[next]);
  return rows;
}

function percent(value, scale) {
  return Math.max(0, Math.min(100, (value / scale) * 100)).toFixed(3) + "%";
}

function segment(kind, from, to, origin, scale, title) {
  return element("div", { class: "segment " + kind, "data-segment": kind, title: title,
    style: "left:" + percent(from - origin, scale) + ";width:" + percent(to - from, scale) });
}

function modelSegments(turn, scale) {
  var origin = turn.requestAt, parts = [];
  var last = turn.lastTokenAt !== undefined ? turn.lastTokenAt : (turn.endAt !== undefined ? turn.endAt : turn.spanEnd);
  if (turn.lastTokenAt === undefined && turn.content === undefined && (turn.status === "failed" || turn.status === "error" || turn.status === "cancelled")) {
    // An attempt that ended without a reply (a failed request before its retry, a cancel).
    parts.push(segment("model", origin, last, origin, scale, "model: request → " + turn.status +
      (turn.errorType ? " (" + turn.errorType + ")" : "") + " after " + formatDuration(last - origin) + ", no reply"));
  } else if (turn.firstTokenAt !== undefined) {
    parts.push(segment("waiting", origin, turn.firstTokenAt, origin, scale,
      "request → first token " + formatDuration(turn.firstTokenAt - origin)));
    parts.push(segment("streaming", turn.firstTokenAt, last, origin, scale,
      "first → last token " + formatDuration(last - turn.firstTokenAt)));
  } else {
    parts.push(segment("model", origin, last, origin, scale, "model: request → last token " + formatDuration(last - origin) +
      " (the log does not record the first token)"));
  }
  return parts;
}

/** Where a tool's bar starts and ends: at its permission question when that came first. */
function toolSpan(turn, tool) {
  var times = [tool.start, tool.permission && tool.permission.requested].filter(function (time) { return time !== undefined; });
  if (times.length === 0) return null;
  return { start: Math.min.apply(null, times), end: tool.end !== undefined ? tool.end : turn.spanEnd };
}

/** Tools that overlap in time (parallel calls) get lanes of their own, stacked in the row. */
function toolLanes(turn) {
  var laneEnds = [], lanes = {};
  turn.tools.forEach(function (tool) {
    var span = toolSpan(turn, tool);
    if (!span) return;
    var lane = laneEnds.findIndex(function (end) { return end <= span.start; });
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = Math.max(span.end, span.start + 1);
    lanes[tool.toolCallId] = lane;
  });
  return { of: lanes, count: Math.max(1, laneEnds.length) };
}

function toolBar(turn, tool, scale, lanes) {
  var span = toolSpan(turn, tool);
  if (!span) return null;
  var start = span.start, end = span.end;
  var height = 10 / lanes.count;
  var position = "top:" + (10 + (lanes.of[tool.toolCallId] || 0) * height).toFixed(2) + "px;height:" + height.toFixed(2) + "px;";
  var duration = end - start;
  var title = tool.name + " · " + (tool.outcome || tool.status) + (tool.outsideSandbox ? " · " + tool.outsideSandbox : "") + " · " + formatDuration(duration) +
    (tool.errorMessage ? "\n" + shorten(tool.errorMessage, 200) : "");
  var bar = element("div", { class: "tool-bar", "data-tool-call-id": tool.toolCallId, "data-name": tool.name,
    "data-status": tool.status, "data-duration-ms": Math.round(duration), title: title,
    style: position + "left:" + percent(start - turn.requestAt, scale) + ";width:" + percent(duration, scale),
    onclick: function (event) { event.stopPropagation(); select({ turn: turn }, tool.toolCallId); } },
    [element("span", { class: "tool-name", text: tool.name })]);
  var permission = tool.permission;
  if (permission && permission.completed !== undefined && duration > 0) {
    var left = ((permission.requested - start) / duration) * 100;
    var width = ((permission.completed - permission.requested) / duration) * 100;
    bar.appendChild(element("div", { class: "permission-wait", "data-decision": permission.decision,
      title: "waited " + formatDuration(permission.completed - permission.requested) + " for permission: " + permission.decision,
      style: "left:" + Math.max(0, left).toFixed(3) + "%;width:" + Math.max(0, width).toFixed(3) + "%" }));
  }
  return bar;
}

function markElement(turnOrigin, mark, scale) {
  return element("div", { class: "mark", "data-kind": mark.kind, title: mark.text,
    style: "left:" + percent(mark.at - turnOrigin, scale) });
}

function turnRow(turn, scale) {
  var span = turn.spanEnd - turn.requestAt;
  var rowScale = state.scaleMode === "turn" ? Math.max(span, 1) : scale;
  var usage = turn.usage || {};
  var lanes = toolLanes(turn);
  var track = element("div", { class: "track" }, [
    element("div", { class: "turn-bar", style: "width:" + percent(span, rowScale) }, modelSegments(turn, rowScale)),
  ].concat(turn.tools.map(function (tool) { return toolBar(turn, tool, rowScale, lanes); }),
    turn.marks.map(function (mark) { return markElement(turn.requestAt, mark, rowScale); })));
  var label = "#" + turn.number + (turn.title.indexOf(", attempt") < 0 ? "" : "." + turn.attempt) + " " + formatDuration(span);
  return element("div", { class: "row turn-row", "data-turn": turn.index, "data-status": turn.status,
    "data-purpose": turn.purpose, "data-span-ms": Math.round(span),
    onclick: function () { select({ turn: turn }); } }, [
    element("div", { class: "label", title: turn.status + (turn.finishReason ? " · " + turn.finishReason : "") }, [
      element("span", { class: "turn-number", text: label }),
      turn.purpose ? element("span", { class: "badge", text: turn.purpose }) : null,
      turn.status !== "completed" ? element("span", { class: "badge status-" + turn.status, text: turn.status }) : null,
    ]),
    track,
    element("div", { class: "tokens", text: usage.input !== undefined ?
      formatNumber(usage.input) + " in · " + formatNumber(usage.output) + " out" : "" }),
  ]);
}

function promptRow(prompt) {
  return element("div", { class: "row prompt-row", "data-prompt": prompt.index, "data-stop-reason": prompt.stopReason,
    onclick: function () { select({ prompt: prompt }); } }, [
    element("div", { class: "label", text: "prompt " + prompt.index }),
    element("div", { class: "prompt-text", text: shorten(prompt.content || "(no prompt in the log)", 200) },
      prompt.marks.concat(prompt.closingMarks).map(function (mark) { return element("span", { class: "mark inline", "data-kind": mark.kind, title: mark.text }); })),
    element("div", { class: "tokens stop-reason", text: prompt.stopReason }),
  ]);
}

function betweenPromptsRow(turn) {
  return element("div", { class: "row between-prompts-row", "data-after-prompt": turn.prompt }, [
    element("div", { class: "label" }, [element("span", { class: "mark inline", "data-kind": "compaction" }), "compaction"]),
    element("div", { class: "prompt-text", text: MANUAL_COMPACTION_WORDS }),
  ]);
}

function compactionRow(compaction) {
  var numbers = formatNumber(compaction.tokensBefore) + " → " + formatNumber(compaction.tokensAfter) + " tokens" +
    (compaction.messagesRemoved !== undefined ? " · " + compaction.messagesRemoved + " messages removed" : "") +
    (compaction.trigger ? " · " + compaction.trigger : "");
  return element("div", { class: "row compaction-row", "data-after-turn": compaction.afterTurn,
    "data-success": compaction.success === undefined ? "unknown" : String(compaction.success),
    onclick: function () { select({ compaction: compaction }); } }, [
    element("div", { class: "label" }, [element("span", { class: "mark inline", "data-kind": "compaction" }), "compaction"]),
    element("div", { class: "prompt-text", text: (compaction.success === false ? "failed: " : "") + numbers }),
    element("div", { class: "tokens", text: compaction.summary ? shorten(compaction.summary, 40) : "" }),
  ]);
}

var state = { rows: [], scale: 1, scaleMode: "shared", first: -1, last: -1, selected: null };

function drawVisibleRows(force) {
  var scroller = document.getElementById("timeline-scroll");
  var body = document.getElementById("timeline-rows");
  var first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
  var last = Math.min(state.rows.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW_HEIGHT) + OVERSCAN);
  if (!force && first === state.first && last === state.last) return;
  state.first = first;
  state.last = last;
  var fragment = document.createDocumentFragment();
  for (var index = first; index < last; index += 1) {
    var row = state.rows[index];
    var node = row.turn ? turnRow(row.turn, state.scale) : row.prompt ? promptRow(row.prompt) :
      row.between ? betweenPromptsRow(row.between) : compactionRow(row.compaction);
    node.style.top = index * ROW_HEIGHT + "px";
    if (state.selected && state.selected === row) node.classList.add("selected");
    fragment.appendChild(node);
  }
  body.replaceChildren(fragment);
}

function renderTimeline(root, view) {
  state.rows = timelineRows(view);
  state.scale = Math.max(1, Math.max.apply(null, [1].concat(view.turns.map(function (turn) { return turn.spanEnd - turn.requestAt; }))));
  var scaleChoice = element("select", { id: "scale-mode" }, [
    element("option", { value: "shared", text: "one time scale for all turns (longest: " + formatDuration(state.scale) + ")" }),
    element("option", { value: "turn", text: "each turn to its own length" }),
  ]);
  scaleChoice.addEventListener("change", function () { state.scaleMode = scaleChoice.value; drawVisibleRows(true); });
  var scroller = element("div", { id: "timeline-scroll", style: "height:min(70vh," + (state.rows.length * ROW_HEIGHT + 2) + "px)" }, [
    element("div", { id: "timeline-rows", style: "height:" + state.rows.length * ROW_HEIGHT + "px" }),
  ]);
  var frame = 0;
  scroller.addEventListener("scroll", function () {
    if (frame) return;
    frame = requestAnimationFrame(function () { frame = 0; drawVisibleRows(false); });
  });
  root.appendChild(element("section", { id: "timeline" }, [
    element("h2", { text: "Timeline: " + view.turns.length + " model requests" }),
    element("div", { class: "legend" }, [scaleChoice].concat(
      [["waiting", "request → first token"], ["streaming", "first → last token"], ["model", "model (first token not recorded)"],
       ["tool success", "tool"], ["tool failed", "failed tool"], ["tool denied", "denied"], ["permission", "permission wait"]]
        .map(function (entry) { return element("span", { class: "key " + entry[0], text: entry[1] }); }))),
    scroller,
  ]));
  drawVisibleRows(true);
}

function select(row, toolCallId) {
  state.selected = state.rows.find(function (candidate) {
    return (row.turn && candidate.turn === row.turn) || (row.prompt && candidate.prompt === row.prompt) ||
      (row.compaction && candidate.compaction === row.compaction);
  }) || null;
  drawVisibleRows(true);
  showDetails(row, toolCallId);
}

/**
 * The SessionView embedded in the page: gzip-compressed JSON in base64 (page-html.ts,
 * embeddedData), unpacked with the browser's DecompressionStream and read chunk by chunk (in
 * Chromium 156 a reader loop inflates several times faster than Response.arrayBuffer or .json
 * on the same stream). A promise of the view.
 */
function readView() {
  var binary = atob(document.getElementById("session-data").textContent);
  var bytes = new Uint8Array(binary.length);
  for (var index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  var reader = new Response(bytes).body.pipeThrough(new DecompressionStream("gzip")).getReader();
  var decoder = new TextDecoder(), parts = [];
  var next = function (chunk) {
    if (chunk.done) return JSON.parse(parts.join("") + decoder.decode());
    parts.push(decoder.decode(chunk.value, { stream: true }));
    return reader.read().then(next);
  };
  return reader.read().then(next);
}

function main() {
  readView().then(renderPage, function (error) {
    document.getElementById("app").appendChild(element("p", { class: "error", id: "data-error",
      text: "This page could not read its session data (" + error + "); a browser with DecompressionStream is needed." }));
  });
}

function renderPage(view) {
  var root = document.getElementById("app");
  renderHeader(root, view);
  renderChart(root, view);
  renderTimeline(root, view);
  root.appendChild(element("aside", { id: "details" }, [element("p", { class: "hint", text: "Click a turn, a tool bar or a prompt to see everything it holds." })]));
  document.body.setAttribute("data-rendered-ms", String(Math.round(performance.now())));
  // The task after the next animation frame runs once that frame is drawn.
  requestAnimationFrame(function () {
    setTimeout(function () { document.body.setAttribute("data-painted-ms", String(Math.round(performance.now()))); }, 0);
  });
}
`;
