import { type Component, Input, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { PermissionReply, PermissionRequest } from "../../permissions/permission-decision.js";
import { answerFor, permissionChoices, TELL_QUESTION, toldReply } from "../permission-answers.js";
import { permissionHeadline, permissionPreview } from "../permission-preview.js";
import { wrapChoices } from "../text-wrap.js";
import type { Theme } from "./theme.js";

/**
 * A permission question inline in the conversation: what the call will do (the `-p` preview of
 * `permission-preview.ts`: the command, the edit's lines, a new file's start) and its answers
 * (permission-answers.ts): `y` yes, `a` yes and always for this exact rule in this session, `p`
 * the same for the command's prefix rule when offered, `n` no, `t` no and a reason typed for the
 * model. While it is open it takes every
 * key, so nothing else can be typed.
 */
export class PermissionQuestion implements Component {
  /** Set once the user chose `t`: the reason being typed. */
  private reason: Input | undefined;
  private answered = false;

  constructor(
    private readonly theme: Theme,
    private readonly request: PermissionRequest,
    private readonly answer: (reply: PermissionReply) => void,
  ) {}

  invalidate(): void {}

  handleInput(data: string): void {
    if (this.answered) {
      return;
    }
    if (this.reason !== undefined) {
      this.reason.handleInput(data);
      return;
    }
    if (data.length !== 1) {
      return;
    }
    const answer = answerFor(this.request, data);
    if (answer === "tell") {
      const input = new Input();
      input.focused = true;
      input.onSubmit = (value) => this.finish(toldReply(value));
      this.reason = input;
    } else if (answer !== undefined) {
      this.finish(answer);
    }
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
      return [...wrapped, ...wrapChoices(permissionChoices(request, theme.bold), width)];
    }
    return [
      ...wrapped,
      ...wrapHanging(theme.dim(`${TELL_QUESTION} (Enter sends)`), width),
      ...this.reason.render(Math.max(1, width)),
    ];
  }

  private finish(reply: PermissionReply): void {
    this.answered = true;
    this.answer(reply);
  }
}

/**
 * A yes/no question inline in the conversation (whether an untrusted project's MCP servers may
 * start): its lines, then `[y] yes   [n] no`. `y` answers yes; `n` or Esc no. While it is open it
 * takes every key.
 */
export class YesNoQuestion implements Component {
  private answered = false;

  constructor(
    private readonly theme: Theme,
    private readonly lines: readonly string[],
    private readonly answer: (yes: boolean) => void,
  ) {}

  invalidate(): void {}

  handleInput(data: string): void {
    const key = data.toLowerCase();
    if (this.answered || (key !== "y" && key !== "n" && data !== "\u001b")) {
      return;
    }
    this.answered = true;
    this.answer(key === "y");
  }

  render(width: number): string[] {
    const { theme } = this;
    const lines = [
      ...this.lines.map((line) => theme.warning(line)),
      "",
      `${theme.bold("[y]")} yes   ${theme.bold("[n]")} no`,
    ];
    return lines.flatMap((line) => wrapHanging(line, width));
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
 * line's own indent (a preview line's `    - ` marker stays alone at the left). The rows after
 * the first continue the line's text where the first row ends (a word broken there is not split
 * by a space), in the colour the line is painted in.
 */
function wrapHanging(line: string, width: number): string[] {
  const colour = LEADING_COLOUR.exec(line)?.[0] ?? "";
  const plain = line.replace(COLOUR_CODES, "");
  const indent = Math.min(plain.length - plain.trimStart().length, 8) + 2;
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
