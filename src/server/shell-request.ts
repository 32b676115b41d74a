/**
 * The fields of Copilot's `shell` permission request (the SDK's `PermissionRequestShell`,
 * `dist/generated/session-events.d.ts`) for one bash command, read with the parser turnloop's own
 * permission rules read it with (permissions/shell-commands.ts), so an app's handler sees the
 * programs the rules see: `echo hi && rm -rf x` runs `echo` and `rm`, `git status | sh` runs `git`
 * and `sh`, `X=1 rm -f y` runs `rm` (its segment `X=1 rm -f y`), `sudo nice rm x` runs `rm`
 * (wrappers peeled), `bash -c 'rm x'` runs `bash` and `rm`.
 *
 * What turnloop cannot know is set conservatively:
 * - `readOnly` is false for every command: turnloop's rules hold no list of programs known to
 *   change nothing (a command runs without asking only when a rule or the mode allows it).
 * - `possiblePaths` are the arguments that may name a file, as written (not resolved): every
 *   argument that is not an option, the value of a `--option=value`, and the targets of `<`
 *   and of redirections that write files, in the command's own text (not in the scripts it
 *   runs with `bash -c`); a word computed when the command runs is listed as written (`$HOME/x`).
 * - `possibleUrls` are the arguments that are URLs (`scheme://…`), the value of a
 *   `--option=value` included.
 * - A command the parser cannot fully read (a computed command name, `eval "$x"`, text that is
 *   not valid bash, a variable that runs a program …: the same `unclear` verdict the permission
 *   gate asks about under deny rules) gets a `warning` naming why, and
 *   `canOfferSessionApproval: false`: a session approval records the command's exact text as a
 *   rule, and the same text may run something else later. When the parser finds no program at
 *   all in it, `commands` holds the whole text as one identifier, so an allowlist of program
 *   names does not approve it.
 */

import type { ShellNode } from "mvdan-sh";
import type { ShellCommand } from "../permissions/shell-analysis.js";
import {
  analyseShellCommand,
  baseName,
  parseShell,
  shellSyntax,
} from "../permissions/shell-commands.js";
import { decodeWord, redirectWritesFile } from "../permissions/shell-words.js";

/** Copilot's `shell` fields (the SDK's `PermissionRequestShell`, besides the common ones). */
export interface ShellRequestFields {
  fullCommandText: string;
  commands: Array<{ identifier: string; readOnly: boolean }>;
  commandSegments: Array<{ identifier: string; fullCommandText: string }>;
  possiblePaths: string[];
  possibleUrls: Array<{ url: string }>;
  hasWriteFileRedirection: boolean;
  canOfferSessionApproval: boolean;
  warning?: string;
}

/** mvdan/sh `RedirOperator` of `<` (a file read on stdin). */
const READ_REDIRECT = 56;
const URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/;

/**
 * The `shell` fields for `command` (see the file comment). `onceOnly`: the question can only be
 * approved once (a command to run outside the sandbox), so no session approval is offered.
 * Never throws.
 */
export function shellRequestFields(command: string, onceOnly: boolean): ShellRequestFields {
  const analysis = analyseShellCommand(command);
  const running = analysis.commands.filter((shellCommand) => shellCommand.runs.length > 0);
  const segments = running.map(segmentOf);
  const unclear = analysis.unclear.length > 0;
  // A script read on its own (`bash -c '…'`) is listed as its commands, not as a path.
  const words = running
    .filter((shellCommand) => !shellCommand.runsScript)
    .flatMap((shellCommand) => argumentValues(shellCommand));
  const paths = [...words.filter((word) => !URL.test(word)), ...redirectTargets(command)];
  return {
    fullCommandText: command,
    commands:
      segments.length === 0 && unclear
        ? [{ identifier: command.trim(), readOnly: false }]
        : segments.map(({ identifier }) => ({ identifier, readOnly: false })),
    commandSegments: segments,
    possiblePaths: [...new Set(paths)],
    possibleUrls: [...new Set(words.filter((word) => URL.test(word)))].map((url) => ({ url })),
    hasWriteFileRedirection: analysis.writes.length > 0,
    canOfferSessionApproval: !onceOnly && !unclear,
    ...(unclear
      ? {
          warning: `turnloop cannot fully read this command (${analysis.unclear.join("; ")}): it may run programs and touch files not listed here`,
        }
      : {}),
  };
}

/**
 * The program a simple command finally runs (path removed) and that command's text, with the
 * variables it runs with (`GIT_EXTERNAL_DIFF=./x git diff`, `env A=1 …`): an app showing the
 * segment shows what may change what runs (trial finding 4).
 */
function segmentOf(shellCommand: ShellCommand): { identifier: string; fullCommandText: string } {
  const [name, ...rest] = shellCommand.runs.map((word) => word.text);
  const identifier = baseName(name ?? "");
  const environment = shellCommand.environment ?? [];
  return { identifier, fullCommandText: [...environment, identifier, ...rest].join(" ") };
}

/** The arguments of what a command runs that may name a file or URL (see the file comment). */
function argumentValues(shellCommand: ShellCommand): string[] {
  return shellCommand.runs.slice(1).flatMap(({ text }) => {
    if (!text.startsWith("-")) {
      return text === "" ? [] : [text];
    }
    const equals = text.indexOf("=");
    return text.startsWith("--") && equals > 0 && equals < text.length - 1
      ? [text.slice(equals + 1)]
      : [];
  });
}

/** Targets of `<` and of redirections that write files, in `command`'s own text. */
function redirectTargets(command: string): string[] {
  const sh = shellSyntax();
  const source = Buffer.from(command, "utf8");
  let file: ShellNode;
  try {
    file = parseShell(command);
  } catch {
    return [];
  }
  const targets: string[] = [];
  sh.Walk(file, (node) => {
    if (node !== null && sh.NodeType(node) === "Redirect") {
      const word = node.Word as ShellNode | null;
      const reads = node.Op === READ_REDIRECT;
      if (word !== null && (reads || redirectWritesFile(sh, node, source))) {
        targets.push(decodeWord(sh, word, source).text);
      }
    }
    return true;
  });
  return targets;
}
