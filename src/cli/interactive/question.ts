import {
  type Component,
  decodeKittyPrintable,
  Input,
  matchesKey,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { PermissionReply, PermissionRequest } from "../../permissions/permission-decision.js";
import {
  answerFor,
  answerKeys,
  permissionChoices,
  SAID_NO,
  TELL_QUESTION,
  toldReply,
} from "../permission-answers.js";
import { permissionHeadline, permissionPreview } from "../permission-preview.js";
import { diffRowHang, wrapChoices } from "../text-wrap.js";
import { isPrintable } from "./screen.js";
import type { Theme } from "./theme.js";

/**
 * A question shown over the input box that takes an answer only from keys bound to it, never
 * from a message being typed (README, "Questions"; a trial of round 3 session 28 saw the `y` of
 * "summarize the key files" trust a project, and the `a` of "also" allow a command for good). A
 * choice key only selects an answer; Enter confirms it. A key that is no answer means a message
 * is being typed: it goes to the input box with the keys that selected since (screen-view.ts
 * routes them), and so does every key while the input box holds text.
 */
export interface BoundQuestion extends Component {
  /**
   * One key while the question has the keys. `undefined` when the question took it (a choice
   * selected or moved, Enter, Esc, a key with no meaning here); else the keys the user is typing
   * a message with, in order, for the input box: the choice keys pressed since the last
   * confirmation, then this one (the selection is cleared).
   */
  take(data: string): string[] | undefined;
  /** Set while the input box holds text and has the keys: the question says how to answer. */
  waiting: boolean;
  /**
   * The keys for the status line as things stand (`y/n or ↑/↓ select · Enter confirms`; the
   * input box's Enter while it has them), Esc apart: see {@link escapeKey}.
   */
  statusKeys(): string;
  /** What Esc does at the question while no prompt runs, or one waits for it (`Esc no`). */
  readonly escapeKey: string;
}

/**
 * The selection of a question's choices, each answered by one key (`y`, `a` …; either case):
 * nothing at first, a choice key or ↑/↓ selects, Enter confirms, Esc refuses, Backspace clears.
 */
class ChoiceKeys {
  /** The index of the selected choice; none at first. */
  selected: number | undefined;
  /** The choice keys pressed since the last confirmation, as typed. */
  private held: string[] = [];

  constructor(
    private readonly keys: readonly string[],
    private readonly on: { confirm: (key: string) => void; refuse: () => void },
  ) {}

  /** See {@link BoundQuestion.take}. */
  take(data: string): string[] | undefined {
    // A terminal speaking the kitty keyboard protocol sends a letter as an escape sequence.
    const typed = decodeKittyPrintable(data) ?? data;
    const index = this.keys.indexOf(typed.toLowerCase());
    if (index >= 0) {
      this.selected = index;
      this.held.push(data);
    } else if (matchesKey(data, "enter")) {
      const key = this.selected === undefined ? undefined : this.keys[this.selected];
      if (key !== undefined) {
        this.clear();
        this.on.confirm(key);
      }
    } else if (matchesKey(data, "escape")) {
      this.clear();
      this.on.refuse();
    } else if (matchesKey(data, "up") || matchesKey(data, "down")) {
      // From nothing selected, ↓ selects the first answer and ↑ the last.
      const count = this.keys.length;
      const up = matchesKey(data, "up");
      const from = this.selected ?? (up ? 0 : count - 1);
      this.selected = (from + (up ? count - 1 : 1)) % count;
    } else if (matchesKey(data, "backspace")) {
      this.clear();
    } else if (isPrintable(typed) || data.startsWith(PASTE_START)) {
      const typed = [...this.held, data];
      this.clear();
      return typed;
    }
    return undefined;
  }

  /** See {@link BoundQuestion.statusKeys}. */
  statusKeys(waiting: boolean): string {
    return waiting
      ? "Enter sends your message"
      : `${this.keys.join("/")} or ↑/↓ select · Enter confirms`;
  }

  /**
   * The line under the choices, saying who has the keys: the input box (`waiting`), or the
   * question with its selection (`chosen`, the selected choice's words) or none yet.
   */
  holderLine(waiting: boolean, chosen: string | undefined, refusal: string): string {
    if (waiting) {
      return `the input box has the keys: send your message (Enter) or clear it to answer here · Esc ${refusal}`;
    }
    if (chosen === undefined) {
      return `its key or ↑/↓ selects an answer, Enter confirms · Esc ${refusal} · other keys write a message`;
    }
    return `selected: ${chosen} · Enter confirms · Esc ${refusal}`;
  }

  private clear(): void {
    this.selected = undefined;
    this.held = [];
  }
}

/** How a bracketed paste starts (pi-tui hands it over whole): text for the input box. */
const PASTE_START = "\u001b[200~";

/**
 * A permission question inline in the conversation: what the call will do (the `-p` preview of
 * `permission-preview.ts`: the command, the edit's lines, a new file's start) and its answers
 * (permission-answers.ts): `y` yes, `a` yes and always for this exact rule in this session (not
 * offered to run a command outside the sandbox: `answerKeys`), `p` the same for the command's prefix rule when offered, `n` no, `t` no and a reason typed for the
 * model. A key selects an answer and Enter confirms it ({@link BoundQuestion}); after `t` the
 * reason box has the keys until Enter sends it.
 */
export class PermissionQuestion implements BoundQuestion {
  waiting = false;
  readonly escapeKey = "Esc cancels the prompt";
  /** Set once the user confirmed `t`: the reason being typed. */
  private reason: Input | undefined;
  private answered = false;
  private readonly choices: ChoiceKeys;

  constructor(
    private readonly theme: Theme,
    private readonly request: PermissionRequest,
    private readonly answer: (reply: PermissionReply) => void,
  ) {
    this.choices = new ChoiceKeys(answerKeys(request), {
      confirm: (key) => this.confirm(key),
      // Esc cancels the running prompt before a question sees it (terminal-face.ts): a no here
      // only if it ever came without one.
      refuse: () => this.finish(SAID_NO),
    });
  }

  invalidate(): void {}

  handleInput(data: string): void {
    this.take(data);
  }

  statusKeys(): string {
    return this.reason === undefined
      ? this.choices.statusKeys(this.waiting)
      : "type the reason · Enter sends it";
  }

  take(data: string): string[] | undefined {
    if (this.answered) {
      return undefined;
    }
    if (this.reason !== undefined) {
      this.reason.handleInput(data);
      return undefined;
    }
    return this.choices.take(data);
  }

  render(width: number): string[] {
    const { theme, request } = this;
    const lines = [
      theme.warning(permissionHeadline(request)),
      ...permissionPreview(request, theme.color),
      "",
    ];
    // Wrapped, never cut: what is approved must be readable at any width.
    const wrapped = lines.flatMap((line) => wrapHanging(line, width));
    if (this.reason === undefined) {
      const selected = this.choices.selected;
      const choices = permissionChoices(request, theme.bold).map((choice, index) =>
        index === selected ? theme.accent(choice) : choice,
      );
      const chosen = selected === undefined ? undefined : permissionChoices(request)[selected];
      const holder = this.choices.holderLine(this.waiting, chosen, "cancels the prompt");
      return [...wrapped, ...wrapChoices(choices, width), ...wrapHanging(theme.dim(holder), width)];
    }
    return [
      ...wrapped,
      ...wrapHanging(theme.dim(`${TELL_QUESTION} (Enter sends)`), width),
      ...this.reason.render(Math.max(1, width)),
    ];
  }

  private confirm(key: string): void {
    const answer = answerFor(this.request, key);
    if (answer === "tell") {
      const input = new Input();
      input.focused = true;
      input.onSubmit = (value) => this.finish(toldReply(value));
      this.reason = input;
    } else if (answer !== undefined) {
      this.finish(answer);
    }
  }

  private finish(reply: PermissionReply): void {
    this.answered = true;
    this.answer(reply);
  }
}

/**
 * A yes/no question inline in the conversation (whether an untrusted project's MCP servers may
 * start): its lines, then `[y] yes   [n] no`. `y` or `n` selects, Enter confirms
 * ({@link BoundQuestion}); Esc is a no.
 */
export class YesNoQuestion implements BoundQuestion {
  waiting = false;
  readonly escapeKey = "Esc no";
  private answered = false;
  private readonly choices: ChoiceKeys;

  constructor(
    private readonly theme: Theme,
    private readonly lines: readonly string[],
    private readonly answer: (yes: boolean) => void,
  ) {
    this.choices = new ChoiceKeys(["y", "n"], {
      confirm: (key) => this.finish(key === "y"),
      refuse: () => this.finish(false),
    });
  }

  invalidate(): void {}

  handleInput(data: string): void {
    this.take(data);
  }

  take(data: string): string[] | undefined {
    return this.answered ? undefined : this.choices.take(data);
  }

  statusKeys(): string {
    return this.choices.statusKeys(this.waiting);
  }

  render(width: number): string[] {
    const { theme } = this;
    const selected = this.choices.selected;
    const paint = (index: number, text: string) => (index === selected ? theme.accent(text) : text);
    const holder = this.choices.holderLine(
      this.waiting,
      selected === undefined ? undefined : ["[y] yes", "[n] no"][selected],
      "no",
    );
    const lines = [
      ...this.lines.map((line) => theme.warning(line)),
      "",
      `${paint(0, `${theme.bold("[y]")} yes`)}   ${paint(1, `${theme.bold("[n]")} no`)}`,
      theme.dim(holder),
    ];
    return lines.flatMap((line) => wrapHanging(line, width));
  }

  private finish(yes: boolean): void {
    this.answered = true;
    this.answer(yes);
  }
}

/** An SGR colour code, as text: Biome refuses a control character in a regular expression literal. */
const SGR = "\u001b\\[[0-9;]*m";
/** A colour code at the start of a line (a preview line is painted whole: permission-preview.ts). */
const LEADING_COLOUR = new RegExp(`^${SGR}`);
/** Every colour code. */
const COLOUR_CODES = new RegExp(SGR, "g");

/**
 * `line` wrapped to `width` display columns; continuation rows are indented two columns past the
 * line's own indent (a preview line's `    - ` marker stays alone at the left), a numbered diff
 * row's under its text (text-wrap.ts `diffRowHang`: its line number stays alone). The rows after
 * the first continue the line's text where the first row ends (a word broken there is not split
 * by a space), in the colour the line is painted in.
 */
function wrapHanging(line: string, width: number): string[] {
  const colour = LEADING_COLOUR.exec(line)?.[0] ?? "";
  const plain = line.replace(COLOUR_CODES, "");
  const indent = diffRowHang(plain) ?? Math.min(plain.length - plain.trimStart().length, 8) + 2;
  if (visibleWidth(line) <= width || width <= indent + 8) {
    return wrapTextWithAnsi(line, Math.max(1, width));
  }
  const [first = "", ...rest] = wrapTextWithAnsi(plain, width);
  // pi-tui's rows hold the line's text apart from the spaces it broke at.
  const tail = plain.startsWith(first) ? plain.slice(first.length).trimStart() : rest.join(" ");
  const paint = (row: string) => (colour === "" ? row : `${colour}${row}\u001b[0m`);
  return [
    paint(first),
    ...(tail === ""
      ? []
      : wrapTextWithAnsi(tail, width - indent).map((row) => `${" ".repeat(indent)}${paint(row)}`)),
  ];
}
