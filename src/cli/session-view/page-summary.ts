import { durationWords } from "../../events/durations.js";

/**
 * In-page script, part 1: helpers, the summary header and the context/cost chart. Plain ES2020
 * run in the browser inside one function with part 2 (page-timeline.ts); `view` is the
 * SessionView embedded in the page. Every text from the log goes in with `textContent`, never
 * as HTML. The chart is SVG drawn here (no library: two polylines and a few lines of axis text
 * are smaller than any chart library, and the DOM can be checked by tests). Durations read as on
 * every face: events/durations.ts `durationWords`, its source embedded.
 */
export const PAGE_SUMMARY_SCRIPT = String.raw`
var SVG_NS = "http://www.w3.org/2000/svg";

function element(tag, attributes, children) {
  var node = document.createElement(tag);
  setAttributes(node, attributes);
  appendChildren(node, children);
  return node;
}

function svgElement(tag, attributes) {
  var node = document.createElementNS(SVG_NS, tag);
  setAttributes(node, attributes);
  return node;
}

function setAttributes(node, attributes) {
  for (var key in attributes || {}) {
    var value = attributes[key];
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, String(value));
  }
}

function appendChildren(node, children) {
  (children || []).forEach(function (child) {
    if (child === null || child === undefined || child === false) return;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  });
}

// Every face's words for a duration: events/durations.ts's function itself, its source embedded.
var durationWords = ${durationWords.toString()};

function formatDuration(ms) {
  if (ms === undefined || ms === null || !isFinite(ms)) return "?";
  return durationWords(ms);
}

function formatNumber(value) {
  return value === undefined || value === null ? "?" : Number(value).toLocaleString("en-US");
}

function formatCost(value) {
  return value === undefined || value === null ? "not recorded" : "$" + value.toFixed(value < 1 ? 4 : 2);
}

function shorten(text, length) {
  var line = String(text || "").replace(/\s+/g, " ").trim();
  return line.length > length ? line.slice(0, length - 1) + "…" : line;
}

function field(name, label, value, title) {
  return element("div", { class: "field" }, [
    element("dt", { text: label }),
    element("dd", { "data-field": name, text: value, title: title }),
  ]);
}

function toolCallCounts(summary) {
  var total = 0;
  var parts = Object.keys(summary.toolCalls).sort().map(function (name) {
    var outcomes = summary.toolCalls[name];
    var words = Object.keys(outcomes).sort().map(function (outcome) {
      total += outcomes[outcome];
      return outcomes[outcome] + " " + outcome;
    });
    return element("li", { "data-tool-name": name, text: name + ": " + words.join(", ") });
  });
  return { total: total, list: element("ul", { class: "tool-counts" }, parts) };
}

function renderHeader(root, view) {
  var summary = view.summary;
  var tokens = summary.tokens;
  var counts = toolCallCounts(summary);
  var costTitle = summary.cost === undefined ? "no request reports a cost" :
    summary.costedRequests + " of " + summary.requests + " requests report a cost";
  var status = summary.running ? "running (or stopped mid-turn)" : "idle";
  root.appendChild(element("header", { id: "summary" }, [
    element("h1", { text: "turnloop session " + (summary.sessionId || "(no session.start)") }),
    element("p", { class: "note", id: "export-note", text:
      "This file contains what the session recorded: file contents, commands and their output. " +
      "Only the values of the secret environment variables turnloop knows (provider keys, variables whose " +
      "names look secret, a URL's password) were replaced by [redacted:NAME] when the log was written; " +
      "any other secret a file or command showed is here as it was. Read it before you share it." }),
    element("dl", { class: "fields" }, [
      field("models", "Models", summary.models.join(", ") || "?"),
      field("prompts", "Prompts", formatNumber(summary.prompts)),
      field("turns", "Turns", formatNumber(summary.turns) +
        (summary.requests === summary.turns ? "" : " (" + formatNumber(summary.requests) + " requests)")),
      field("tool-calls", "Tool calls", formatNumber(counts.total)),
      field("tokens-in", "Tokens in", formatNumber(tokens.input)),
      field("tokens-out", "Tokens out", formatNumber(tokens.output)),
      field("tokens-cached", "Tokens cached (read)", formatNumber(tokens.cacheRead)),
      field("tokens-cache-write", "Cache writes", formatNumber(tokens.cacheWrite)),
      field("cost", "Cost", formatCost(summary.cost), costTitle),
      field("wall-time", "Wall time", formatDuration(summary.wallMs)),
      field("status", "Status", status),
      field("started", "Started", summary.startTime || "?"),
      field("cwd", "Folder", summary.cwd || "?"),
      field("producer", "Written by", "turnloop " + (summary.producerVersion || "?")),
    ]),
    counts.list,
    renderPromptList(view.prompts),
    renderRepairs(summary.repaired),
  ]));
}

function renderPromptList(prompts) {
  return element("ol", { class: "prompts" }, prompts.map(function (prompt) {
    return element("li", { class: "prompt", "data-prompt": prompt.index, "data-stop-reason": prompt.stopReason }, [
      element("span", { class: "stop-reason", text: prompt.stopReason }),
      " " + shorten(prompt.content || "(no prompt in the log)", 160),
    ]);
  }));
}

function renderRepairs(notes) {
  if (notes.length === 0) return null;
  return element("div", { class: "repairs" }, [
    element("strong", { text: "Damaged log: " + notes.length + (notes.length === 1 ? " line" : " lines") + " skipped. " }),
    element("ul", {}, notes.map(function (note) {
      return element("li", { class: "repaired", "data-line": note.line, text:
        "line " + note.line + " (byte " + note.offset + ", " + note.length + " bytes): " +
        note.reason.replace("_", " ") + (note.when === "on resume" ? ", cut when the session was resumed" : "") });
    })),
  ]);
}

/** Keeps at most about 'limit' points: the first, last, lowest and highest of each bucket. */
function downsample(points, limit) {
  if (points.length <= limit) return points;
  var size = Math.ceil(points.length / (limit / 2));
  var kept = [];
  for (var start = 0; start < points.length; start += size) {
    var bucket = points.slice(start, start + size);
    var low = bucket[0], high = bucket[0];
    bucket.forEach(function (point) {
      if (point.y < low.y) low = point;
      if (point.y > high.y) high = point;
    });
    (low.x <= high.x ? [low, high] : [high, low]).forEach(function (point) {
      if (kept[kept.length - 1] !== point) kept.push(point);
    });
  }
  return kept;
}

function chartSeries(turns) {
  var context = [], cost = [], total = 0, anyCost = false;
  turns.forEach(function (turn) {
    var usage = turn.usage || {};
    if (usage.input !== undefined) context.push({ x: turn.index, y: usage.input });
    if (turn.cost !== undefined) { total += turn.cost; anyCost = true; }
    if (anyCost) cost.push({ x: turn.index, y: total });
  });
  return { context: context, cost: cost };
}

function renderChart(root, view) {
  var series = chartSeries(view.turns);
  var section = element("section", { id: "chart" }, [element("h2", { text: "Context size and cumulative cost per turn" })]);
  root.appendChild(section);
  if (view.turns.length === 0) { section.appendChild(element("p", { text: "No turns." })); return; }
  var width = Math.max(320, section.clientWidth || 900), height = 180, left = 64, right = 70, top = 10, bottom = 24;
  var maxX = Math.max(2, view.turns.length);
  var maxContext = Math.max.apply(null, [1].concat(series.context.map(function (p) { return p.y; }),
    view.compactions.map(function (c) { return c.tokensBefore || 0; })));
  var maxCost = series.cost.length > 0 ? Math.max(series.cost[series.cost.length - 1].y, 1e-9) : 1;
  var x = function (turn) { return left + ((turn - 1) / (maxX - 1)) * (width - left - right); };
  var y = function (value, max) { return top + (1 - value / max) * (height - top - bottom); };
  var svg = svgElement("svg", { width: width, height: height, role: "img", "aria-label": "context tokens and cost per turn" });
  [["0", height - bottom], [formatNumber(maxContext), top + 8]].forEach(function (label) {
    var text = svgElement("text", { x: left - 6, y: label[1], "text-anchor": "end", class: "axis" });
    text.textContent = label[0];
    svg.appendChild(text);
  });
  var axis = svgElement("text", { x: left, y: height - 6, class: "axis" });
  axis.textContent = "turn 1 … " + view.turns.length + "   ─ context (input tokens of each request)   " +
    (series.cost.length > 0 ? "┄ cumulative cost (right axis)" : "cost not recorded") + "   ┆ compaction";
  svg.appendChild(axis);
  if (series.cost.length > 0) {
    var costLabel = svgElement("text", { x: width - right + 6, y: top + 8, class: "axis" });
    costLabel.textContent = formatCost(maxCost);
    svg.appendChild(costLabel);
  }
  view.compactions.forEach(function (compaction) {
    var at = x(Math.max(1, compaction.afterTurn + 0.5));
    var line = svgElement("line", { x1: at, x2: at, y1: top, y2: height - bottom, class: "compaction-line",
      "data-after-turn": compaction.afterTurn });
    var title = svgElement("title", {});
    title.textContent = "compaction after turn " + compaction.afterTurn + ": " +
      formatNumber(compaction.tokensBefore) + " → " + formatNumber(compaction.tokensAfter) + " tokens";
    line.appendChild(title);
    svg.appendChild(line);
  });
  var polyline = function (points, max, name) {
    if (points.length === 0) return;
    var coordinates = downsample(points, 2 * width).map(function (p) { return x(p.x).toFixed(1) + "," + y(p.y, max).toFixed(1); });
    svg.appendChild(svgElement("polyline", { points: coordinates.join(" "), class: "series " + name, "data-series": name, "data-points": points.length }));
  };
  polyline(series.context, maxContext, "context");
  polyline(series.cost, maxCost, "cost");
  section.appendChild(svg);
}
`;
