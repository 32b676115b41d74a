import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, resolve } from "node:path";

/**
 * The folder to keep read-only for the hooks the `core.hooksPath` of git folder `gitFolder`'s
 * `config` names (read-only itself, so a command cannot change it), when it is an absolute path
 * or, for a `<work tree>/.git` folder, one relative to the work tree (git runs hooks there):
 * that folder, or, when it is named `_` (husky's `.husky/_`, whose scripts run the hooks in the
 * folder above, `.husky/pre-commit`), the folder above it. `undefined` when there is none, or it
 * starts with `~` or goes through an `include` (not read here).
 */
export function hooksPathFolder(gitFolder: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(resolve(gitFolder, "config"), "utf8");
  } catch {
    return undefined;
  }
  const value = lastHooksPath(text);
  if (value === undefined || value === "" || value.startsWith("~")) {
    return undefined;
  }
  if (!isAbsolute(value) && basename(gitFolder) !== ".git") {
    return undefined;
  }
  const folder = resolve(dirname(gitFolder), value);
  return basename(folder) === "_" ? dirname(folder) : folder;
}

/** The last `hooksPath` of a `[core]` section of git config `text` (git takes the last one). */
function lastHooksPath(text: string): string | undefined {
  let section = "";
  let found: string | undefined;
  for (const line of text.split("\n")) {
    const header = /^\s*\[\s*([^\]\s"]+)[^\]]*\]\s*(.*)$/.exec(line);
    const rest = header === null ? line : (header[2] ?? "");
    if (header !== null) {
      section = (header[1] ?? "").toLowerCase();
    }
    const entry = /^\s*hookspath\s*=\s*(.*)$/i.exec(rest);
    if (section === "core" && entry !== null) {
      found = configValue(entry[1] ?? "");
    }
  }
  return found;
}

/** A config value without its comment, quotes and surrounding blanks (no escapes but `\\"`). */
function configValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index];
    if (character === "\\" && index + 1 < raw.length) {
      value += raw[++index];
    } else if (character === '"') {
      quoted = !quoted;
    } else if (!quoted && (character === "#" || character === ";")) {
      break;
    } else {
      value += character;
    }
  }
  return value.trim();
}
