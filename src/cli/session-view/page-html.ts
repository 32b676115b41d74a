/**
 * The self-contained HTML document of a session view: styles, script and data inline, and a
 * Content-Security-Policy that forbids every request (no `connect-src`, `img-src` or frames), so
 * the file works offline and cannot leak what it shows.
 */

import { constants, gzipSync } from "node:zlib";
import { PAGE_DETAILS_SCRIPT } from "./page-details.js";
import { PAGE_SUMMARY_SCRIPT } from "./page-summary.js";
import { PAGE_TIMELINE_SCRIPT } from "./page-timeline.js";
import type { SessionView } from "./view-model.js";

const STYLE = `
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --panel: #f9fafb;
  --waiting: #c7d2fe; --streaming: #6366f1; --model: #818cf8; --success: #10b981; --failed: #ef4444;
  --denied: #f59e0b; --cancelled: #9ca3af; --permission: #fde68a; }
@media (prefers-color-scheme: dark) { :root { --line: #374151; --panel: #111827; --muted: #9ca3af; } }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.45 system-ui, sans-serif; }
#app { display: grid; grid-template-columns: minmax(0, 3fr) minmax(280px, 2fr); gap: 0 16px; padding: 12px 16px; }
header, #chart { grid-column: 1 / -1; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 12px 0 6px; } h3 { font-size: 13px; margin: 10px 0 4px; }
h4 { font-size: 12px; margin: 6px 0 2px; color: var(--muted); }
.note { background: #fef3c7; color: #78350f; padding: 4px 8px; border-radius: 4px; display: inline-block; margin: 4px 0; }
.fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 4px 12px; margin: 8px 0; }
.field dt { color: var(--muted); font-size: 11px; } .field dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.tool-counts, .prompts { margin: 4px 0; padding-left: 20px; }
.tool-counts { columns: 3 200px; }
.stop-reason { font-family: ui-monospace, monospace; font-size: 11px; background: var(--panel); border: 1px solid var(--line); border-radius: 3px; padding: 0 3px; }
.repairs { border-left: 4px solid var(--failed); padding: 4px 8px; margin: 6px 0; }
#chart svg { display: block; border: 1px solid var(--line); border-radius: 4px; }
.axis { font-size: 10px; fill: var(--muted); }
.series { fill: none; stroke-width: 1.5; } .series.context { stroke: var(--streaming); }
.series.cost { stroke: var(--success); stroke-dasharray: 4 3; }
.compaction-line { stroke: var(--denied); stroke-width: 2; stroke-dasharray: 3 2; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin-bottom: 6px; font-size: 11px; }
.key::before { content: ""; display: inline-block; width: 12px; height: 10px; margin-right: 3px; vertical-align: -1px; border-radius: 2px; }
.key.waiting::before { background: var(--waiting); } .key.streaming::before { background: var(--streaming); }
.key.model::before { background: var(--model); } .key.success::before { background: var(--success); }
.key.failed::before { background: var(--failed); } .key.denied::before { background: var(--denied); }
.key.permission::before { background: var(--permission); }
#timeline-scroll { max-height: 720px; overflow-y: auto; border: 1px solid var(--line); border-radius: 4px; }
#timeline-rows { position: relative; }
.row { position: absolute; left: 0; right: 0; height: 28px; display: flex; align-items: center; gap: 6px; padding: 0 6px;
  border-bottom: 1px solid var(--line); cursor: pointer; white-space: nowrap; }
.row.selected { outline: 2px solid var(--streaming); outline-offset: -2px; }
.prompt-row { background: var(--panel); font-weight: 600; }
.compaction-row, .between-prompts-row { background: #fffbeb; color: #92400e; }
.between-prompts-row { font-weight: 600; }
.label { width: 150px; flex: none; overflow: hidden; text-overflow: ellipsis; }
.badge { font-size: 10px; border-radius: 3px; padding: 0 3px; margin-left: 3px; background: var(--line); font-weight: 400; }
.badge.status-failed, .badge.status-error { background: var(--failed); color: white; }
.prompt-text { flex: 1; overflow: hidden; text-overflow: ellipsis; }
.track { position: relative; flex: 1; height: 20px; }
.tokens { width: 130px; flex: none; text-align: right; color: var(--muted); font-size: 11px; overflow: hidden; }
.turn-bar { position: absolute; top: 2px; height: 6px; left: 0; min-width: 2px; }
.segment { position: absolute; top: 0; height: 6px; min-width: 1px; }
.segment.waiting { background: var(--waiting); } .segment.streaming { background: var(--streaming); } .segment.model { background: var(--model); }
.tool-bar { position: absolute; top: 10px; height: 10px; min-width: 2px; border-radius: 2px; overflow: hidden; font-size: 9px; line-height: 10px; color: white; }
.tool-bar[data-status=success] { background: var(--success); } .tool-bar[data-status=failed] { background: var(--failed); }
.tool-bar[data-status=denied] { background: var(--denied); } .tool-bar[data-status=running] { background: var(--model); }
.tool-bar[data-status=interrupted] { background: var(--cancelled); }
.tool-name { position: relative; padding-left: 2px; }
.permission-wait { position: absolute; top: 0; bottom: 0; background: var(--permission); opacity: .85; }
.mark { position: absolute; top: 0; width: 0; height: 20px; border-left: 2px solid; margin-left: -1px; }
.mark::after { content: ""; position: absolute; top: -1px; left: -4px; width: 6px; height: 6px; border-radius: 50%; background: currentColor; }
.mark.inline { position: relative; display: inline-block; height: 12px; margin: 0 4px; }
.mark[data-kind=retry] { color: var(--denied); } .mark[data-kind=error], .mark[data-kind=abort] { color: var(--failed); }
.mark[data-kind=compaction] { color: #d97706; } .mark[data-kind=repaired] { color: #be185d; }
.mark[data-kind=permission] { color: #ca8a04; } .mark[data-kind=resume], .mark[data-kind=model], .mark[data-kind=nudge], .mark[data-kind=hook], .mark[data-kind=instructions] { color: var(--muted); }
.mark[data-kind=plan], .mark[data-kind=task_complete] { color: var(--success); }
.mark[data-kind=autopilot_stopped] { color: #ca8a04; }
#details { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; border-left: 1px solid var(--line); padding: 0 0 0 12px; }
.hint, .meta { color: var(--muted); margin: 2px 0; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 3px; padding: 6px; margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, monospace; }
.diff .added { color: #047857; } .diff .removed { color: #b91c1c; }
.error { color: var(--failed); } .tool-details.focused { outline: 2px solid var(--streaming); outline-offset: 2px; }
.marks { padding-left: 16px; } .mark-kind { font-weight: 600; }
`;

/** What a browser may load for this page: nothing from anywhere; inline script and style only. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * The page's data: `value` as JSON (UTF-8), gzip-compressed at the fastest level and in base64,
 * for a `<script type="application/gzip">` that the page unpacks with the browser's
 * `DecompressionStream` (page-timeline.ts, `readView`). Compressed because the browser's HTML
 * parser going through the data, not the page's script, was most of a long session's render time
 * (bench/notes/targets.md, "viewer-sandbox lane"); base64 holds no `<`, so nothing in the data can
 * end the element early.
 */
function embeddedData(value: unknown): string {
  return gzipSync(JSON.stringify(value), { level: constants.Z_BEST_SPEED }).toString("base64");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The whole page for `view`, as one string (UTF-8 when written). */
export function sessionViewHtml(view: SessionView): string {
  const title = `turnloop session ${view.summary.sessionId ?? ""}`.trim();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="turnloop sessions view">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<div id="app"></div>
<script type="application/gzip" id="session-data">${embeddedData(view)}</script>
<script>
(function () {
"use strict";
${PAGE_SUMMARY_SCRIPT}
${PAGE_TIMELINE_SCRIPT}
${PAGE_DETAILS_SCRIPT}
main();
})();
</script>
</body>
</html>
`;
}
