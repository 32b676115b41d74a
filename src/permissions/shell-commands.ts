/**
 * Reads a bash command the way bash would, for the permission rules: which simple commands it
 * runs, spelled plainly. Parsing is mvdan/sh's bash parser (`mvdan-sh`); this file only walks
 * its syntax tree. Each simple command is normalised: quotes and escapes removed (`"r"\m` is
 * `rm`), brace expansions made (`{rm,x}` is `rm x`: shell-words.ts), `VAR=x` prefixes dropped
 * (and listed in {@link ShellCommand.assigns}), a path reduced to its last part (`/bin/rm` is
 * `rm`), and wrappers that run their arguments as a command (`sudo`, `env`, `timeout`, `flock`,
 * `watch` … with their options: shell-wrappers.ts) peeled off. The scripts given to `bash -c`, `sh -c`, `eval`, `trap` and `su -c` are read too when
 * they are literal, and the commands inside `$(…)`, `<(…)`, functions and heredocs count like
 * any other. Options that write files count as a redirection (shell-side-effects.ts).
 *
 * What cannot be known without running it is reported in {@link ShellAnalysis.unclear}: a
 * command name that is computed (`$x`, `$(…)`, a glob), `eval` or `bash -c` of a computed string,
 * `source`, a shell reading commands from a file or stdin, expansions that can run code
 * (`${x@P}`, subscripts, arithmetic on variables), a variable's value bash evaluates or a
 * program may read as an option (`[[ $x -eq 0 ]]`, `git log "$o"`: shell-values.ts), a program
 * that runs a command in a syntax not read (`ssh`, `strace`) or through an option (`tar
 * --to-command=`), a variable that runs a program or a change to bash's name lookup
 * (`GIT_SSH_COMMAND=…`, `hash -p`: shell-environment.ts), a glob that may expand to an option
 * (`--outpu*`: shell-words.ts), and invalid bash.
 */

import { createRequire } from "node:module";
import type { ShellNode, ShellParser, ShellSyntax } from "mvdan-sh";
import { readGitAlias } from "./program-arguments.js";
import { readWrapper, trapHandler } from "./program-runners.js";
import type { ShellAnalysis, ShellCommand } from "./shell-analysis.js";
import {
  assignedVariables,
  readBuiltinSettings,
  readSettingNode,
  wrapperAssignments,
} from "./shell-environment.js";
import { readFindExec, readProgramOptions } from "./shell-side-effects.js";
import {
  computedOption,
  declaredVariables,
  readEvaluation,
  SHELLS,
  xargsInputOption,
} from "./shell-values.js";
import {
  baseName,
  type DecodedWord,
  decodeWord,
  expandWords,
  expansionRunsCode,
  redirectWritesFile,
  sourceOf,
} from "./shell-words.js";
import { WRAPPERS, type WrapperResult } from "./shell-wrappers.js";

export { baseName } from "./shell-words.js";

/** Nesting of `bash -c` / `eval` scripts read before giving up. */
const MAX_DEPTH = 4;
/** Commands whose script argument, when read, is listed as commands of its own (so do wrappers'). */
const SCRIPT_RUNNERS = new Set(["eval", "trap", "git"]);
/** Shell options that take the next word as their value. */
const SHELL_OPTIONS_WITH_VALUE = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** mvdan/sh's `RdrIn` (`<`): reads its target (shell-words.ts lists the writing operators). */
const READING_REDIRECT = 56;

let syntax: ShellSyntax | undefined;

/** mvdan-sh is 1.5 MB of JavaScript: loaded at the first bash decision, not at start-up. */
export function shellSyntax(): ShellSyntax {
  if (syntax === undefined) {
    const loaded = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShellSyntax };
    syntax = loaded.syntax;
  }
  return syntax;
}

let parser: ShellParser | undefined;

/**
 * `source` parsed as bash by the one parser every parse shares: making a parser cost about twice
 * its parse of a short command, and the garbage of both (bench/notes/server41.md). mvdan/sh's
 * `Parser.Parse` resets the parser's state and takes each tree's nodes from fresh slots, so a tree
 * already returned stays as it was through later parses, a failed one included (a script nested in
 * a command is parsed while the command's tree is read: {@link readScript}).
 * @throws mvdan-sh's ParseError (`Text`, `Incomplete`) when `source` is not valid bash.
 */
export function parseShell(source: string): ShellNode {
  parser ??= shellSyntax().NewParser();
  return parser.Parse(source, "");
}

/** Analyses `source` as bash (see the file comment). Never throws. */
export function analyseShellCommand(source: string): ShellAnalysis {
  const analysis: ShellAnalysis = {
    commands: [],
    unclear: [],
    writes: [],
    redirections: [],
    mentions: new Set(),
    namePatterns: [],
  };
  for (const token of source.split(/[^A-Za-z0-9_.+\-/]+/)) {
    addMention(analysis, token);
  }
  readScript(source, analysis, 0);
  return analysis;
}

function addMention(analysis: ShellAnalysis, text: string): void {
  for (const piece of text.split(/\s+/)) {
    if (piece !== "") {
      analysis.mentions.add(piece);
      analysis.mentions.add(baseName(piece));
    }
  }
}

function readScript(source: string, analysis: ShellAnalysis, depth: number): void {
  if (depth > MAX_DEPTH) {
    analysis.unclear.push("scripts nested too deeply to follow");
    return;
  }
  const sh = shellSyntax();
  let file: ShellNode;
  try {
    file = parseShell(source);
  } catch (error) {
    const text = (error as { Text?: unknown } | null)?.Text;
    analysis.unclear.push(`not valid bash (${typeof text === "string" ? text : "parse error"})`);
    return;
  }
  const bytes = Buffer.from(source, "utf8");
  const context = { sh, source: bytes, analysis, depth, declared: declaredVariables() };
  sh.Walk(file, (node) => {
    if (node !== null) {
      visit(context, node);
    }
    return true;
  });
}

/** What reading one script needs: the parser, the UTF-8 source, the result so far, the nesting. */
interface ReadContext {
  sh: ShellSyntax;
  source: Buffer;
  analysis: ShellAnalysis;
  depth: number;
  /** The `-i` and `-A` declarations read so far (shell-values.ts). */
  declared: ReturnType<typeof declaredVariables>;
}

function visit(context: ReadContext, node: ShellNode): void {
  const { sh, source, analysis } = context;
  switch (sh.NodeType(node)) {
    case "CallExpr":
      readCall(context, node);
      return;
    case "Word":
      addMention(analysis, decodeWord(sh, node, source).text);
      return;
    case "Redirect": {
      const writes = redirectWritesFile(sh, node, source);
      if (writes) {
        analysis.writes.push(sourceOf(node, source));
      }
      const target = node.Word as ShellNode | null;
      if (target !== null && (writes || node.Op === READING_REDIRECT)) {
        analysis.redirections.push({ target: decodeWord(sh, target, source), writes });
      }
      readSettingNode(sh, node, source, analysis);
      return;
    }
    case "WordIter":
    case "DeclClause":
      readSettingNode(sh, node, source, analysis);
      readEvaluation(sh, node, source, analysis.unclear, context.declared);
      return;
    case "ParamExp":
      if (expansionRunsCode(node)) {
        analysis.unclear.push(`an expansion that can run code (${sourceOf(node, source)})`);
      }
      return;
    default:
      readEvaluation(sh, node, source, analysis.unclear, context.declared);
  }
}

function readCall(context: ReadContext, node: ShellNode): void {
  const { sh, source, analysis } = context;
  const args = (node.Args as ShellNode[] | null) ?? [];
  if (args.length === 0) {
    readSettingNode(sh, node, source, analysis);
    return;
  }
  const prefix = (node.Assigns as ShellNode[] | null) ?? [];
  const assigns = assignedVariables(sh, prefix, source, analysis.unclear);
  const words = expandWords(sh, args, source, analysis.unclear);
  const forms: string[] = [];
  const command: ShellCommand = {
    words: words.map((word) => word.text),
    forms,
    runs: words,
    runsScript: false,
    assigns,
    environment: prefix.map((assign) => sourceOf(assign, source)),
  };
  analysis.commands.push(command);
  let rest = words;
  let appended = false;
  while (rest.length > 0) {
    command.runs = rest;
    const [name, ...tail] = rest;
    if (name === undefined) {
      return;
    }
    if (name.text.includes("=") && !name.computed) {
      analysis.unclear.push(`a variable where a command name is expected (${name.text})`);
      return;
    }
    if (name.computed || name.pattern) {
      if (!name.computed) {
        analysis.namePatterns.push(baseName(name.text));
      }
      analysis.unclear.push(`a command name that is computed when it runs (${name.text})`);
      return;
    }
    const base = baseName(name.text);
    forms.push([base, ...tail.map((word) => word.text)].join(" "));
    const before = analysis.commands.length;
    const next = innerCommand(base, tail, context);
    const input = appended && !readWrapper(base, tail) ? xargsInputOption(base, tail) : undefined;
    analysis.unclear.push(...(input === undefined ? [] : [input]));
    appended ||= /^g?xargs$/.test(base);
    command.runsScript ||=
      analysis.commands.length > before &&
      (SCRIPT_RUNNERS.has(base) || SHELLS.has(base) || WRAPPERS.has(base));
    if (next === undefined) {
      return;
    }
    const skipped = tail.slice(0, tail.length - next.length);
    command.assigns.push(...wrapperAssignments(skipped, analysis.unclear));
    command.environment?.push(...skipped.flatMap(({ text }) => (/^\w+=/.test(text) ? [text] : [])));
    rest = next;
  }
}

/** What runs inside `name tail…`: the words of the wrapped command, or undefined for none. */
function innerCommand(
  name: string,
  tail: DecodedWord[],
  { analysis, depth, declared }: ReadContext,
): DecodedWord[] | undefined {
  readProgramOptions(name, tail, analysis, (script) => readScript(script, analysis, depth + 1));
  if (SHELLS.has(name)) {
    readShell(name, tail, analysis, depth);
    return undefined;
  }
  switch (name) {
    case "eval":
      readScriptWords(name, tail[0]?.text === "--" ? tail.slice(1) : tail, analysis, depth);
      return undefined;
    case "trap": {
      const handler = trapHandler(tail);
      if (handler !== undefined) {
        readScriptWords(name, [handler], analysis, depth);
      }
      return undefined;
    }
    case "source":
    case ".":
      analysis.unclear.push(`${name} runs the commands of a file`);
      return undefined;
    case "alias":
      analysis.unclear.push("alias changes what later words mean");
      return undefined;
    case "find":
    case "gfind":
    case "bfs":
      readFindExec(tail, analysis);
      break;
    case "git":
      break;
    default:
      readBuiltinSettings(name, tail, {
        unclear: analysis.unclear,
        integers: declared.integers,
        readScript: (script) => readScript(script, analysis, depth + 1),
      });
  }
  const result = readWrapper(name, tail);
  const computed = result
    ? undefined
    : computedOption(name.replace(/^[gb]f(?:in)?d$/, "find"), tail);
  analysis.unclear.push(...(computed === undefined ? [] : [computed]));
  return name === "git"
    ? readGitAlias(tail, analysis.unclear, (script) => readScript(script, analysis, depth + 1))
    : result && applyWrapper(name, result, tail, analysis, depth);
}

function applyWrapper(
  name: string,
  result: WrapperResult,
  tail: DecodedWord[],
  analysis: ShellAnalysis,
  depth: number,
): DecodedWord[] | undefined {
  switch (result.kind) {
    case "command":
      return tail.slice(result.start);
    case "script": {
      const script = tail[result.index];
      if (script !== undefined) {
        readScriptWords(name, [script, ...tail.slice(result.index + 1)], analysis, depth);
      }
      return undefined;
    }
    case "unclear":
      analysis.unclear.push(`${name}: ${result.reason}`);
      return undefined;
    case "none":
      return undefined;
    default:
      return result satisfies never;
  }
}

/** `bash [options] -c script …`; without `-c` a shell reads a file or stdin we cannot see. */
function readShell(
  name: string,
  tail: DecodedWord[],
  analysis: ShellAnalysis,
  depth: number,
): void {
  let script = false;
  if (tail.some((word) => /^-[A-Za-z]*H|^histexpand$/.test(word.text))) {
    analysis.unclear.push(`${name} -H: the commands !! runs again are not read`);
  }
  for (let index = 0; index < tail.length; index++) {
    const word = tail[index];
    if (word === undefined) {
      break;
    }
    if (word.computed) {
      analysis.unclear.push(`${name} with computed arguments`);
      return;
    }
    if (SHELL_OPTIONS_WITH_VALUE.has(word.text)) {
      index++;
      continue;
    }
    if (word.text === "--" || word.text === "-") {
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word.text) || word.text.startsWith("--")) {
      script ||=
        word.text.startsWith("-") && !word.text.startsWith("--") && word.text.includes("c");
      if (word.text.startsWith("-") && word.text.includes("s") && !word.text.startsWith("--")) {
        analysis.unclear.push(`${name} -s reads commands from standard input`);
        return;
      }
      continue;
    }
    if (!script) {
      analysis.unclear.push(`${name} runs the script file ${word.text}`);
      return;
    }
    if (name === "fish") {
      analysis.unclear.push("fish -c (not bash syntax)");
      return;
    }
    readScript(word.text, analysis, depth + 1);
    return;
  }
  analysis.unclear.push(`${name} reads commands from standard input`);
}

/** `eval a b` runs `a b` as a script; so does the handler of `trap`. */
function readScriptWords(
  name: string,
  words: DecodedWord[],
  analysis: ShellAnalysis,
  depth: number,
): void {
  if (words.some((word) => word.computed)) {
    analysis.unclear.push(`${name} of a computed string`);
    return;
  }
  readScript(words.map((word) => word.text).join(" "), analysis, depth + 1);
}
