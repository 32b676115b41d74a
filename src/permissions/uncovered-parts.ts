/**
 * What the allow rules leave of a command they cover in part, and why, for a refusal to name
 * (cli/no-terminal-reason.ts): each simple command none of them covers, with the rule that would
 * (`touch x`, also when `env` or `nice` runs it), and each part that only a rule equal to the whole
 * command can cover (permission-rules.ts `rulesCover`): what writes a file (`> out.txt`,
 * `sort -o out`), what sets a variable (`IFS=x`), and what cannot be fully read (`… | sh`).
 * Loaded when a refusal needs it, not at start-up.
 */

import { exactCommandPattern } from "./permission-mode.js";
import {
  analyse,
  commandMatches,
  judgedByAllowRules,
  movesFolder,
  type PermissionRule,
  partCovered,
  type RuleSubject,
} from "./permission-rules.js";
import type { ShellAnalysis, ShellCommand } from "./shell-analysis.js";
import { baseName } from "./shell-commands.js";
import { IDENTITY_WRAPPERS, raisingForm } from "./shell-wrappers.js";

/**
 * One part of a command the allow rules leave. `pattern` is the narrowest rule pattern that covers
 * the part (`touch x`, `rm *` for what xargs runs): absent when only a rule equal to the whole
 * command can. `text` is the part as written (`rm a01`, `> out.txt`; empty when the part is the
 * whole command's unread rest); `reason` says why, when its text alone does not: `` `env` runs it:
 * a program given as an argument ``, `writes a file`, `runs the code it reads from standard input`.
 */
export interface UncoveredPart {
  text: string;
  reason?: string;
  pattern?: string;
}

/** Programs that run the code they read from standard input when given no script (`… | python3`). */
const INTERPRETER =
  /^(?:python[\d.]*|pypy[\d.]*|node|nodejs|perl|ruby|php|lua(?:jit)?|tclsh|pwsh|osascript)$/;

/**
 * The parts of `subject`'s command that the allow rules of its tool leave ({@link UncoveredPart}),
 * in source order, those a rule of their own covers first. Undefined when the tool has no allow
 * rule with a pattern, or they cover none of the command (a lone command none of them matches:
 * the whole command is then the rule to suggest), or they leave nothing.
 */
export function uncoveredParts(
  rules: readonly PermissionRule[],
  subject: RuleSubject,
): UncoveredPart[] | undefined {
  const patterns = rules.flatMap((rule) =>
    rule.tool === subject.toolName && rule.pattern !== undefined ? [rule.pattern] : [],
  );
  if (patterns.length === 0 || subject.command === undefined) {
    return undefined;
  }
  const analysis = analyse(subject.command);
  const judged = analysis.commands.filter(judgedByAllowRules);
  const touched = judged.some(({ forms }) =>
    forms.some((form) => patterns.some((pattern) => commandMatches(pattern, form))),
  );
  if (!touched && judged.length < 2) {
    return undefined;
  }
  const folderMoves = movesFolder(analysis);
  // A part the unclear reasons (`sh reads commands from standard input`) or the writes
  // (`tee out.txt`) name already is said once, there.
  const unread = (part: UncoveredPart) =>
    analysis.writes.includes(part.text) ||
    analysis.unclear.some((reason) => reason.startsWith(`${part.text} `));
  const own = judged
    .flatMap((shellCommand): UncoveredPart[] =>
      // A computed command name (`$TOOL x`) is among the unclear reasons: no rule names it.
      shellCommand.forms.length === 0 ||
      shellCommand.assigns.length > 0 ||
      partCovered(patterns, shellCommand, folderMoves)
        ? []
        : [ownPart(shellCommand)],
    )
    .filter((part) => !unread(part));
  const parts = [...own, ...wholeOnlyParts(analysis, judged)];
  return parts.length === 0 ? undefined : parts;
}

/** A simple command no allow rule covers, with the rule that would: one for what it runs. */
function ownPart(shellCommand: ShellCommand): UncoveredPart {
  const { forms, runs, runBy } = shellCommand;
  const raising = raisingForm(forms);
  const name = raising?.split(" ", 1)[0] ?? "";
  const why = IDENTITY_WRAPPERS.get(name);
  if (raising !== undefined && why !== undefined) {
    // A rule for what it finally runs does not cover it: the rule must name the wrapper.
    return { text: raising, reason: `\`${name}\` ${why}`, pattern: exactCommandPattern(raising) };
  }
  const text = runs.map((word) => word.text).join(" ");
  const pattern = exactCommandPattern(forms.at(-1) ?? text);
  const runners = forms.slice(0, -1).map((form) => form.split(" ")[0] ?? "");
  const program = baseName(runs[0]?.text ?? "");
  if (runners.some((runner) => /^g?xargs$/.test(runner))) {
    const reason = `\`${runners.join(" ")}\` runs it with arguments it reads from standard input`;
    return { text, reason, pattern: `${pattern} *` };
  }
  if (runners.length > 0) {
    return {
      text,
      reason: `\`${runners.join(" ")}\` runs it: a program given as an argument`,
      pattern,
    };
  }
  if (runBy !== undefined) {
    return { text, reason: `\`${runBy}\` runs it for each file found`, pattern };
  }
  if (INTERPRETER.test(program) && runs.slice(1).every((word) => /^-[uqBIsE]*$/.test(word.text))) {
    return { text, reason: "it runs the code it reads from standard input", pattern };
  }
  return { text, pattern };
}

/**
 * The parts only a rule equal to the whole command covers: what writes files, each simple
 * command that sets a variable, and what cannot be fully read.
 */
function wholeOnlyParts(analysis: ShellAnalysis, judged: readonly ShellCommand[]): UncoveredPart[] {
  const writes = analysis.writes.map((text) => ({
    text,
    reason: /^(?:g?find|bfs) .*-delete\b/.test(text)
      ? "deletes files"
      : /^[\d&]*[<>]/.test(text)
        ? "writes a file"
        : "writes files",
  }));
  const settings = judged.flatMap(({ assigns, environment, words }) =>
    assigns.length === 0
      ? []
      : [
          {
            text: [...(environment ?? []).filter((each) => !words.includes(each)), ...words].join(
              " ",
            ),
            reason: "sets a variable",
          },
        ],
  );
  const unclear =
    analysis.unclear.length === 0
      ? []
      : [{ text: "", reason: `it cannot be fully read (${analysis.unclear.join("; ")})` }];
  return [...writes, ...settings, ...unclear];
}
