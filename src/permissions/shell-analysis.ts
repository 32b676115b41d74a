/**
 * What reading a bash command tells the permission rules (shell-commands.ts reads it): each
 * simple command it runs and how it is spelled, what cannot be known without running it, whether
 * it writes files and what it mentions. Types only: the readers of its parts (shell-environment.ts,
 * shell-side-effects.ts) fill the same {@link ShellAnalysis}.
 */

import type { DecodedWord } from "./shell-words.js";

/** One simple command as it would run. */
export interface ShellCommand {
  /** Its words after quote removal; a computed word keeps its source text (`$HOME`). */
  words: string[];
  /**
   * The spellings rules are matched against: the command with its path removed, then each
   * command a wrapper runs (`sudo nice rm x` gives `sudo nice rm x`, `nice rm x`, `rm x`).
   * The last is what finally runs.
   */
  forms: string[];
  /** The words of what finally runs (the last of {@link forms}), as written. */
  runs: DecodedWord[];
  /**
   * Allow rules judge not this command but the script it runs, listed separately (`bash -c '…'`),
   * or the package runner's call running it (`npx tape x` for `tape x`, shell-side-effects.ts).
   */
  runsScript: boolean;
  /**
   * Variables it sets (shell-environment.ts): for what it runs (`A=1 cmd`, `env A=1 cmd`) or for
   * later commands (`A=1`, `export A=1`). Allow rules cover it only by its whole text when any.
   */
  assigns: string[];
  /** The `NAME=value` words it runs with (`A=1 cmd`, `env A=1 cmd`), as written. */
  environment?: string[];
  /** For a command another program runs for each file it finds: that program's action (`find -exec`). */
  runBy?: string;
}

/** What a bash command does, as far as its text tells. */
export interface ShellAnalysis {
  /** Every simple command, nested ones (`$(…)`, `bash -c '…'`) included, in source order. */
  commands: ShellCommand[];
  /** Why the command cannot be fully understood; empty when it can. */
  unclear: string[];
  /**
   * What writes files, as written: each redirection of output to a file (`> out.txt`; not to
   * /dev/null) and each command whose options or operands write one (`sort -o out in.txt`,
   * `find . -delete`). Empty when it writes none.
   */
  writes: string[];
  /**
   * Each redirection that reads or writes a file (`< in.txt`, `> out.txt`, `2>> log`; not
   * `<<`/`<<<` text, not `2>&1`), nested scripts' included, in source order: its target decoded
   * (a computed one keeps its source text, `$TMPDIR/x`) and whether it writes it.
   */
  redirections: { target: DecodedWord; writes: boolean }[];
  /** Words and names the text mentions, decoded, for deny rules when `unclear` is not empty. */
  mentions: Set<string>;
  /** Command names that are globs or brace lists (`/bin/r?`, `{r,}m`), without their path. */
  namePatterns: string[];
}
