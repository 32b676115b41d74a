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
  visibleWidth,
} from "@mariozechner/pi-tui";
import type { CommandDefinition } from "../../session/commands.js";

/** Files offered after `@`. */
const SUGGESTIONS = 20;
/** Files listed from the folder at most (the listing is made once, on the first `@`). */
const LISTED_FILES = 20_000;

/**
 * Tab completion in the input box: `/` completes the shared command names and their other names
 * (`/clear`, `/quit`; pi-tui's provider),
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

  /**
   * @param contentWidth the editor's content width in columns when known (the menu is laid out
   * in it: {@link fittedDescriptions}).
   */
  constructor(
    commands: readonly CommandDefinition[],
    private readonly cwd: string,
    private readonly contentWidth: () => number | undefined = () => undefined,
  ) {
    // A command's other names (`/clear` for `/new`: session/commands.ts `aliases`) are offered
    // too, each saying whose it is: a habit from another agent completes as it runs.
    const named = commands.flatMap((command) =>
      [command.name, ...(command.aliases ?? [])].map((name) => ({ name, command })),
    );
    this.commands = new CombinedAutocompleteProvider(
      named.map(({ name, command }) => ({
        name,
        description:
          name === command.name ? command.description : `${command.description} (/${command.name})`,
        ...(command.input === undefined ? {} : { argumentHint: command.input.hint }),
      })),
      cwd,
    );
    this.commandNames = named.map(({ name }) => name);
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
      const suggestions = await this.commands.getSuggestions(lines, cursorLine, cursorCol, options);
      const width = this.contentWidth();
      return suggestions === null || width === undefined
        ? suggestions
        : { ...suggestions, items: fittedDescriptions(suggestions.items, width) };
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
  let modules: [
    typeof import("node:child_process"),
    typeof import("@vscode/ripgrep"),
    typeof import("../../session/command-environment.js"),
  ];
  try {
    modules = await Promise.all([
      import("node:child_process"),
      import("@vscode/ripgrep"),
      import("../../session/command-environment.js"),
    ]);
  } catch {
    return [];
  }
  const [{ execFile }, { rgPath }, { commandEnvironment }] = modules;
  return new Promise((resolve) => {
    execFile(
      rgPath,
      ["--files", "--hidden", "--glob", "!.git"],
      // The commands' environment: no helper process of turnloop's gets its keys.
      { cwd, maxBuffer: 64 * 1024 * 1024, env: commandEnvironment(process.env, []) },
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

/**
 * The suggestion menu's descriptions cut to the room pi-tui's `SelectList` gives them, at a word
 * and marked `…`, so that a row never ends mid-word (the `/mc` menu at 120 columns ended
 * "… to free context; recent"). The room is computed as `SelectList.renderItem` lays a row out
 * in the editor's content width: a 2-column marker, a name column of the widest name plus 2
 * (within 12–32, pi-tui's layout for `/` menus; at most the width less 6), then 2 columns
 * spare. Under 41 columns pi-tui shows no descriptions; they are left as they are.
 */
export function fittedDescriptions(
  items: readonly AutocompleteItem[],
  contentWidth: number,
): AutocompleteItem[] {
  const widest = Math.max(0, ...items.map((item) => visibleWidth(item.label || item.value)));
  const nameColumn = Math.min(Math.max(widest + NAME_GAP, MIN_NAME), MAX_NAME, contentWidth - 6);
  const room = contentWidth - MARKER - nameColumn - SPARE;
  if (contentWidth <= 40 || room <= MIN_DESCRIPTION) {
    return [...items];
  }
  return items.map((item) =>
    item.description === undefined
      ? item
      : { ...item, description: cutAtWord(item.description.replace(/\s+/g, " ").trim(), room) },
  );
}

const MARKER = 2;
const NAME_GAP = 2;
const MIN_NAME = 12;
const MAX_NAME = 32;
const SPARE = 2;
/** pi-tui shows no description with this room or less. */
const MIN_DESCRIPTION = 10;

/** `text` in at most `room` columns: whole, or up to its last word that fits, then `…`. */
function cutAtWord(text: string, room: number): string {
  if (visibleWidth(text) <= room) {
    return text;
  }
  let kept = "";
  for (const word of text.split(" ")) {
    const next = kept === "" ? word : `${kept} ${word}`;
    if (visibleWidth(next) + 1 > room) {
      break;
    }
    kept = next;
  }
  // A first word too long for the room is cut inside it, as nothing else can show.
  const shown = kept === "" ? [...text].slice(0, room - 1).join("") : kept;
  return `${shown.replace(/[\s,;:.—-]+$/, "")}…`;
}

/**
 * `pass` given what it is given, except that each bracketed paste comes whole in one call. Put
 * before pi-tui's `StdinBuffer` (screen.ts `gateStdinReads`), which adds each read of a paste to the
 * paste so far and searches all of it for the end marker, so a paste read in N pieces was copied
 * and searched N times: a 5 MB paste took 67 s of CPU and 366 MiB (bench/notes/memory29.md). Here
 * each read is searched once (with the end of the one before, for a marker split between two)
 * and the pieces are joined once. A start marker split between two reads is left to pi-tui
 * (slower, not wrong).
 */
export function pasteGate(pass: (data: string) => void): (data: string) => void {
  let pieces: string[] | undefined;
  /** The last characters of the paste so far, where an end marker split between reads starts. */
  let last = "";
  const gate = (given: string): void => {
    let data = given;
    if (pieces === undefined) {
      const start = data.indexOf(PASTE_START);
      if (start === -1) {
        pass(data);
        return;
      }
      if (start > 0) {
        pass(data.slice(0, start));
      }
      pieces = [];
      data = data.slice(start);
    }
    const end = (last + data).indexOf(PASTE_END);
    if (end === -1) {
      pieces.push(data);
      last = (last + data.slice(-PASTE_END.length)).slice(1 - PASTE_END.length);
      return;
    }
    const cut = end - last.length + PASTE_END.length;
    pieces.push(data.slice(0, cut));
    const whole = pieces.join("");
    pieces = undefined;
    last = "";
    pass(whole);
    if (cut < data.length) {
      gate(data.slice(cut));
    }
  };
  return gate;
}
