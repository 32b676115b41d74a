/**
 * The note a sandboxed command's result gets when its text or its output names a place the
 * sandbox hid from it (bubblewrap-arguments.ts `hideMount`: a folder mounted empty, a file that
 * cannot be opened): there `cat ~/.ssh/id_rsa` says "No such file or directory", which a model
 * would pass on as "you have no SSH key" (trial 40 F7). The file tools are told the place is
 * hidden (permissions/hidden-places.ts); this tells a command the same. No note when no hidden
 * place is named: a command and its output are searched for each place's spellings only.
 */

import { relative } from "node:path";
import type { HiddenPlace } from "./bubblewrap-arguments.js";

/** Where a place's spellings are looked for: `home` and `cwd` (absolute) give the shorter ones. */
export interface NamedPlaces {
  command: string;
  output: string;
  home: string;
  cwd: string;
}

/**
 * The note for the places of `hidden` that `named.command` or `named.output` names (by its path,
 * `~/…`, `$HOME/…`, `${HOME}/…`, or relative to the command's folder), each shown as `~/…` under
 * the home folder, else by its path; undefined when none is named.
 */
export function hiddenPlaceNote(
  hidden: readonly HiddenPlace[],
  named: NamedPlaces,
): string | undefined {
  const text = `${named.command}\n${named.output}`;
  const shown = hidden.flatMap((place) => {
    const spellings = spellingsOf(place.path, named);
    return spellings.some((spelling) => names(text, spelling))
      ? [`${shownPath(place.path, named.home)} (${reasonOf(place)})`]
      : [];
  });
  if (shown.length === 0) {
    return undefined;
  }
  const one = shown.length === 1;
  return (
    `Note: the sandbox hides ${shown.join(", ")} from commands, so here ${one ? "it reads" : "each reads"} ` +
    `as missing, empty or not permitted whatever ${one ? "it holds" : "they hold"}. Do not tell the user ` +
    `${one ? "it is" : "they are"} missing, and do not try to reach ${one ? "it" : "them"} another way: ` +
    `only the user can allow ${one ? "it" : "them"}.`
  );
}

/** Why the sandbox hides `place`, in the words of protected-place-stops.ts. */
function reasonOf(place: HiddenPlace): string {
  return place.turnloopHome
    ? "turnloop's own folder, TURNLOOP_HOME: the session logs"
    : "one of the places for credentials and sockets; sandbox.hidden in a config file";
}

/** How a command or its output may spell `path`. */
function spellingsOf(path: string, { home, cwd }: NamedPlaces): string[] {
  const spellings = [path];
  const inHome = relative(home, path);
  if (inHome !== "" && !inHome.startsWith("..")) {
    spellings.push(`~/${inHome}`, `$HOME/${inHome}`, `\${HOME}/${inHome}`);
  }
  const inFolder = relative(cwd, path);
  if (inFolder !== "" && !inFolder.startsWith("..")) {
    spellings.push(inFolder, `./${inFolder}`);
  }
  return spellings;
}

/** Whether `text` names `spelling` as a whole path or a path's start (not `x.ssh`, `.sshx`). */
function names(text: string, spelling: string): boolean {
  let from = text.indexOf(spelling);
  while (from !== -1) {
    const before = from === 0 ? "" : (text[from - 1] ?? "");
    const after = text[from + spelling.length] ?? "";
    if (/^$|[\s'"`=:(<>]/.test(before) && /^$|[/\s'"`:;)|&<>]/.test(after)) {
      return true;
    }
    from = text.indexOf(spelling, from + 1);
  }
  return false;
}

/** `path` as `~/…` under `home`, else as it is. */
function shownPath(path: string, home: string): string {
  const inHome = relative(home, path);
  return inHome !== "" && !inHome.startsWith("..") ? `~/${inHome}` : path;
}
