import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  Editor,
  type EditorOptions,
  type EditorTheme,
  fuzzyFilter,
  getKeybindings,
  type TUI,
} from "@mariozechner/pi-tui";
import type { CommandDefinition } from "../../session/commands.js";

/** Files offered after `@`. */
const SUGGESTIONS = 20;
/** Files listed from the folder at most (the listing is made once, on the first `@`). */
const LISTED_FILES = 20_000;

/**
 * Tab completion in the input box: `/` completes the shared command names (pi-tui's provider),
 * `@` completes the files of the session's folder as ripgrep lists them (`rg --files`: the
 * `.gitignore` is respected), fuzzily matched.
 *
 * Type-ahead: the menu's suggestions are computed asynchronously, so keys typed in a burst
 * (`/`, then `usage` and Enter) reach the editor while the menu still shows the list computed
 * for earlier text. Applying that stale choice would rewrite text it was not computed for
 * (`/usage` became `/usaghelp`). {@link applyCompletion} therefore checks that the menu's prefix
 * is still the text before the cursor and, when it is not, chooses from the current text
 * instead, so every key typed counts, in order, whatever the menu is doing.
 */
export class PromptCompletion implements AutocompleteProvider {
  private readonly commands: CombinedAutocompleteProvider;
  private readonly commandNames: readonly string[];
  private files: Promise<string[]> | undefined;
  /** The folder's files once listed (for a choice made synchronously on a stale menu). */
  private listedFiles: readonly string[] | undefined;
  /** Set when a stale menu took Enter or Tab and had nothing to apply: {@link PromptEditor} replays it. */
  unappliedKey = false;

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
    this.commandNames = commands.map((command) => command.name);
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
    this.files ??= listFiles(this.cwd).then((files) => {
      this.listedFiles = files;
      return files;
    });
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
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    if (completionPrefix(before) === prefix) {
      return this.commands.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    }
    // The menu is stale (keys arrived before its suggestions caught up): choose from the text.
    const current = this.currentChoice(before);
    if (current === undefined) {
      // Nothing to choose for the text typed since: the key acts as if no menu were open
      // (the editor submits on Enter itself when the stale menu was a command menu).
      this.unappliedKey = !prefix.startsWith("/");
      return { lines, cursorLine, cursorCol };
    }
    return this.commands.applyCompletion(
      lines,
      cursorLine,
      cursorCol,
      current.item,
      current.prefix,
    );
  }

  /**
   * `line` (a `/command` being typed, the cursor at its end) completed as Tab completes it when
   * the menu shows: the menu's first choice (`/ses` → `/sessions `). Undefined when `line` is no
   * command being typed or no command matches. {@link PromptEditor} uses it for a Tab typed
   * before the menu's suggestions arrived.
   */
  commandCompletion(line: string): string | undefined {
    const choice = /^\/[^\s]*$/.test(line) ? this.currentChoice(line) : undefined;
    if (choice === undefined) {
      return undefined;
    }
    const applied = this.commands.applyCompletion(
      [line],
      0,
      line.length,
      choice.item,
      choice.prefix,
    );
    return applied.lines[0];
  }

  /**
   * The choice the menu would offer first for `before` (the text before the cursor), computed
   * synchronously: the command named exactly, else the best fuzzy match; the best matching file
   * after `@` once the folder is listed. `undefined` when nothing matches.
   */
  private currentChoice(before: string): { item: AutocompleteItem; prefix: string } | undefined {
    const prefix = completionPrefix(before);
    if (prefix === undefined) {
      return undefined;
    }
    if (prefix.startsWith("/")) {
      const query = prefix.slice(1);
      const name = this.commandNames.includes(query)
        ? query
        : fuzzyFilter([...this.commandNames], query, (entry) => entry)[0];
      return name === undefined ? undefined : { item: { value: name, label: name }, prefix };
    }
    const file = fuzzyFilter([...(this.listedFiles ?? [])], prefix.slice(1), (entry) => entry)[0];
    return file === undefined ? undefined : { item: { value: `@${file}`, label: file }, prefix };
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.commands.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}

/**
 * The text a menu completes for `before` (the line up to the cursor), as the suggestions name it:
 * the whole `/command` word at the start of the line, or the `@mention` being typed.
 */
function completionPrefix(before: string): string | undefined {
  if (/^\/[^\s]*$/.test(before)) {
    return before;
  }
  const mention = /(?:^|\s)@([^\s"]*)$/.exec(before);
  return mention === null ? undefined : `@${mention[1] ?? ""}`;
}

/**
 * The folder's files, relative, sorted; `[]` when ripgrep cannot run. ripgrep's path and
 * `node:child_process` load here, on the first `@`, not before the input box is drawn (issue 26).
 */
async function listFiles(cwd: string): Promise<string[]> {
  let modules: [typeof import("node:child_process"), typeof import("@vscode/ripgrep")];
  try {
    modules = await Promise.all([import("node:child_process"), import("@vscode/ripgrep")]);
  } catch {
    return [];
  }
  const [{ execFile }, { rgPath }] = modules;
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

/** Bracketed paste markers (the terminal sends a paste as one string between them). */
const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

/** The text of `data` before its final line break when it is one whole paste ending with one. */
function pastedBeforeFinalBreak(data: string): string | undefined {
  if (!data.startsWith(PASTE_START) || !data.endsWith(PASTE_END)) {
    return undefined;
  }
  const text = data.slice(PASTE_START.length, data.length - PASTE_END.length);
  const body = text.replace(/(?:\r\n|\n|\r)$/, "");
  return body === text ? undefined : body;
}

/**
 * The input box: pi-tui's editor with {@link PromptCompletion}. A key that a stale menu took
 * without applying anything (Enter after typing past an `@mention` faster than the menu
 * followed) is handled again with the menu closed, so it submits or completes as typed. Tab on a
 * `/command` being typed completes it whether or not the menu's suggestions have arrived (pi-tui
 * would open the menu instead when they have not, so `/ses` Tab typed quickly stayed `/ses`). A
 * paste ending with a line break is counted by its lines.
 */
export class PromptEditor extends Editor {
  constructor(
    tui: TUI,
    theme: EditorTheme,
    options: EditorOptions,
    private readonly completion: PromptCompletion,
  ) {
    super(tui, theme, options);
    this.setAutocompleteProvider(completion);
  }

  override handleInput(data: string): void {
    const paste = pastedBeforeFinalBreak(data);
    if (paste !== undefined) {
      // A paste's final line break ends its last line: it is kept as a typed line break, so the
      // `[paste #1 +N lines]` marker counts the lines pasted (3000, not 3001).
      super.handleInput(`${PASTE_START}${paste}${PASTE_END}`);
      this.insertTextAtCursor("\n");
      return;
    }
    if (
      !this.isShowingAutocomplete() &&
      getKeybindings().matches(data, "tui.input.tab") &&
      this.completeCommand()
    ) {
      return;
    }
    this.completion.unappliedKey = false;
    super.handleInput(data);
    if (this.completion.unappliedKey) {
      this.completion.unappliedKey = false;
      super.handleInput(data);
    }
  }

  /** Completes a `/command` alone on the line with the cursor at its end; false when there is none. */
  private completeCommand(): boolean {
    const [line, ...more] = this.getLines();
    if (line === undefined || more.length > 0 || this.getCursor().col !== line.length) {
      return false;
    }
    const completed = this.completion.commandCompletion(line);
    if (completed === undefined) {
      return false;
    }
    this.setText(completed);
    return true;
  }
}
