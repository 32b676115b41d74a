import { execFile } from "node:child_process";
import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  fuzzyFilter,
} from "@mariozechner/pi-tui";
import { rgPath } from "@vscode/ripgrep";
import type { CommandDefinition } from "../../session/commands.js";

/** Files offered after `@`. */
const SUGGESTIONS = 20;
/** Files listed from the folder at most (the listing is made once, on the first `@`). */
const LISTED_FILES = 20_000;

/**
 * Tab completion in the input box: `/` completes the shared command names (pi-tui's provider),
 * `@` completes the files of the session's folder as ripgrep lists them (`rg --files`: the
 * `.gitignore` is respected), fuzzily matched.
 */
export class PromptCompletion implements AutocompleteProvider {
  private readonly commands: CombinedAutocompleteProvider;
  private files: Promise<string[]> | undefined;

  constructor(
    commands: readonly CommandDefinition[],
    private readonly cwd: string,
  ) {
    this.commands = new CombinedAutocompleteProvider(
      commands.map((command) => ({
        name: command.name,
        description: command.description,
        ...(command.input === undefined ? {} : { argumentHint: command.input.hint }),
      })),
      cwd,
    );
  }

  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const mention = /(?:^|\s)@([^\s"]*)$/.exec(before);
    if (mention === null) {
      return this.commands.getSuggestions(lines, cursorLine, cursorCol, options);
    }
    const query = mention[1] ?? "";
    this.files ??= listFiles(this.cwd);
    const files = await this.files;
    const items: AutocompleteItem[] = fuzzyFilter(files, query, (file) => file)
      .slice(0, SUGGESTIONS)
      .map((file) => ({ value: `@${file}`, label: file }));
    return items.length === 0 ? null : { items, prefix: `@${query}` };
  }

  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    return this.commands.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.commands.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}

/** The folder's files, relative, sorted; `[]` when ripgrep cannot run. */
function listFiles(cwd: string): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      rgPath,
      ["--files", "--hidden", "--glob", "!.git"],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout) => {
        const files = String(stdout ?? "")
          .split("\n")
          .filter((line) => line !== "")
          .slice(0, LISTED_FILES);
        resolve(files.sort());
      },
    );
  });
}
