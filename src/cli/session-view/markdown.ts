import { durationWords } from "../../events/durations.js";
import type { SentAttachment } from "../../session/prompt-attachments.js";
import { manualCompactionWords } from "../../session/session-model/session-model.js";
import { PROCESS_ENDED_WORDS } from "../prompt-stop.js";
import type {
  SessionView,
  ViewMark,
  ViewPrompt,
  ViewSummary,
  ViewTool,
  ViewTurn,
} from "./view-model.js";

/**
 * The notice every export carries, in every format: what was redacted, exactly (the session
 * host's secret values: events/secrets.ts), and that nothing else was.
 */
export const EXPORT_NOTE =
  "This export contains what the session recorded: file contents, commands and their output. " +
  "Only the values of the secret environment variables turnloop knows (provider keys, variables whose " +
  "names look secret, a URL's password) were replaced by [redacted:NAME] when the log was written; " +
  "any other secret a file or command showed is here as it was. Read it before you share it.";

/** A fenced block whose fence is longer than any run of backticks inside `text`. */
function fenced(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) {
    return "?";
  }
  return durationWords(ms);
}

/**
 * When a mark was, from the start of what it is listed under (`origin`: `prompt`, or `request`
 * for a turn's): `at +6 ms` after it, `6 ms before the request` before it (a compaction, or
 * instructions loaded, just before the request or prompt they are listed with), never `−6 ms`.
 */
function offset(ms: number, origin: "prompt" | "request"): string {
  return ms < 0 ? `${duration(-ms)} before the ${origin}` : `at +${duration(ms)}`;
}

function marks(list: readonly ViewMark[], start: number, origin: "prompt" | "request"): string[] {
  return list.map((mark) => {
    const detail = mark.detail === undefined ? "" : `\n\n${fenced(mark.detail, "text")}`;
    return `- **${mark.kind}** ${offset(mark.at - start, origin)}: ${mark.text}${detail}`;
  });
}

/**
 * How a call went wrong, outside the output: `Error (code): message` for a one-line message;
 * a longer one (a command's output) in a block of its own, unless it is the result shown below.
 */
function errorLines(entry: ViewTool): string[] {
  const { errorMessage } = entry;
  if (errorMessage === undefined) {
    return [];
  }
  const outcome = `Error (${entry.errorCode ?? "?"})`;
  if (errorMessage === entry.result) {
    return ["", `${outcome}; the output the model got:`];
  }
  return errorMessage.includes("\n")
    ? ["", `${outcome}:`, "", fenced(errorMessage, "text")]
    : ["", `${outcome}: ${errorMessage}`];
}

function tool(entry: ViewTool): string[] {
  // The session model's duration leaves out the wait for a permission answer.
  const took =
    entry.durationMs ??
    (entry.start !== undefined && entry.end !== undefined ? entry.end - entry.start : undefined);
  const args =
    typeof entry.arguments === "string"
      ? entry.arguments
      : JSON.stringify(entry.arguments, null, 2);
  const lines = [
    `#### \`${entry.name}\` · ${[entry.outcome ?? entry.status, entry.outsideSandbox].filter(Boolean).join(" · ")} · ${duration(took)}`,
    "",
    fenced(args, "json"),
  ];
  const permission = entry.permission;
  if (permission !== undefined) {
    const answer = permission.decision ?? "no answer in the log";
    lines.push(
      "",
      `Permission asked (${permission.kind}): ${permission.title} — ${answer}${permission.scope === undefined ? "" : ` (${permission.scope})`}${permission.reason === undefined ? "" : `: ${permission.reason}`}`,
    );
  }
  lines.push(...errorLines(entry));
  if (entry.result !== undefined) {
    lines.push("", fenced(entry.result, "text"));
  }
  return lines;
}

function turn(entry: ViewTurn): string[] {
  const usage = entry.usage ?? {};
  const heading = [
    `### ${entry.title}`,
    entry.purpose,
    entry.errorType === undefined ? entry.status : `${entry.status} (${entry.errorType})`,
    duration(entry.spanEnd - entry.requestAt),
    `${usage.input ?? "?"} in / ${usage.output ?? "?"} out`,
  ].filter((part) => part !== undefined);
  const lines = [heading.join(" · "), ""];
  lines.push(...marks(entry.marks, entry.requestAt, "request"));
  if (entry.marks.length > 0) {
    lines.push("");
  }
  if (entry.reasoning !== undefined) {
    lines.push(
      "<details><summary>reasoning</summary>",
      "",
      fenced(entry.reasoning, "text"),
      "",
      "</details>",
      "",
    );
  }
  if (entry.content !== undefined && entry.content !== "") {
    lines.push(entry.content, "");
  }
  for (const call of entry.tools) {
    lines.push(...tool(call), "");
  }
  return lines;
}

/** The session as Markdown: summary table, then each prompt with its turns and tools. */
export function sessionViewMarkdown(view: SessionView): string {
  const { summary } = view;
  const toolCount = Object.values(summary.toolCalls)
    .flatMap((outcomes) => Object.values(outcomes))
    .reduce((sum, value) => sum + value, 0);
  const lines = [
    `# turnloop session ${summary.sessionId ?? ""}`.trim(),
    "",
    `> ${EXPORT_NOTE}`,
    "",
    "| | |",
    "|---|---|",
    `| models | ${summary.models.join(", ")} |`,
    `| prompts | ${summary.prompts} |`,
    `| turns | ${summary.turns}${summary.requests === summary.turns ? "" : ` (${summary.requests} requests)`} |`,
    `| tool calls | ${toolCount} |`,
    `| tokens in / out / cached | ${summary.tokens.input} / ${summary.tokens.output} / ${summary.tokens.cacheRead} |`,
    `| cost | ${costCell(summary)} |`,
    `| wall time | ${duration(summary.wallMs)} |`,
    "",
  ];
  for (const note of summary.repaired) {
    lines.push(
      `- damaged line ${note.line} skipped (${note.reason}${note.when === "on resume" ? ", on resume" : ""})`,
    );
  }
  const turnsOfPrompt = new Map<number, ViewTurn[]>();
  for (const entry of view.turns) {
    const group = turnsOfPrompt.get(entry.prompt);
    if (group === undefined) {
      turnsOfPrompt.set(entry.prompt, [entry]);
    } else {
      group.push(entry);
    }
  }
  for (const prompt of view.prompts) {
    lines.push(...promptSection(prompt, turnsOfPrompt.get(prompt.index) ?? []));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A prompt's section: its text, what was sent with it, its marks and `turns` (its own, in order:
 * the view's turns are grouped by prompt once, not searched per prompt), its closing marks;
 * then each manual compaction run after it (before the next prompt) under a heading of its own.
 */
function promptSection(prompt: ViewPrompt, turns: ViewTurn[]): string[] {
  const lines = [
    `## Prompt ${prompt.index} · ${prompt.stopReason}${prompt.processEnded ? ` (${PROCESS_ENDED_WORDS})` : ""}`,
    "",
    ...prompt.content.split("\n").map((line) => `> ${line}`),
    "",
    ...sentWithPrompt(prompt),
    ...marks(prompt.marks, prompt.at, "prompt"),
  ];
  const manual = turns.filter((entry) => entry.betweenPrompts === true);
  for (const entry of turns.filter((each) => !manual.includes(each))) {
    lines.push(...turn(entry));
  }
  if (prompt.closingMarks.length > 0) {
    lines.push(...marks(prompt.closingMarks, prompt.at, "prompt"), "");
  }
  for (const entry of manual) {
    lines.push(MANUAL_COMPACTION_HEADING, "", ...turn(entry));
  }
  return lines;
}

/** The heading of a compaction the user started between prompts, as every view words it. */
const MANUAL_COMPACTION_HEADING = `## Compaction · ${manualCompactionWords((name) => `\`${name}\``)}`;

/**
 * The cost row: the sum of the requests that report a cost, in US dollars, saying how many
 * requests had none (a model without a price in the catalogue), as the HTML view's title does.
 */
function costCell(summary: ViewSummary): string {
  if (summary.cost === undefined) {
    return summary.requests === 0 ? "not recorded" : "unknown (no request reports a cost)";
  }
  const total = `$${summary.cost.toFixed(4)}`;
  return summary.costedRequests === summary.requests
    ? total
    : `${total} (${summary.costedRequests} of ${summary.requests} requests report a cost; the rest have no price)`;
}

/**
 * What the model got with a prompt besides its text, each in a block under a line saying what it
 * is: a `!command`'s output, an attached file, piped stdin, an embedded resource.
 */
function sentWithPrompt(prompt: ViewPrompt): string[] {
  const blocks = [
    ...prompt.commands.map((run) => ({
      heading: `Output of \`!${run.command}\` (${run.ending}), sent to the model with the prompt:`,
      text: run.output,
    })),
    ...prompt.attachments.map((attachment) => ({
      heading: `${attachmentLabel(attachment)}, sent to the model with the prompt:`,
      text: attachment.text,
    })),
  ];
  return blocks.flatMap((block) => [block.heading, "", fenced(block.text, "text"), ""]);
}

/** What an attachment is, in the words of the export: `Attached file notes.md`. */
export function attachmentLabel(attachment: SentAttachment): string {
  switch (attachment.kind) {
    case "file":
      return `Attached file ${attachment.name}`;
    case "stdin":
      return "Piped stdin";
    case "resource":
      return `Attached resource ${attachment.name}`;
    case "other":
      return "Attached text";
  }
}
