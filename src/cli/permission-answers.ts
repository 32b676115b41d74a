import { argumentText, markedText } from "../events/errors.js";
import { stillAskedNote } from "../permissions/command-prefix.js";
import type { PermissionReply, PermissionRequest } from "../permissions/permission-decision.js";
import { offersAlwaysAnswers } from "../permissions/permission-mode.js";

/** Characters of a rule or a note a choice's row shows whole; a longer one loses its middle. */
const CHOICE_TEXT_LENGTH = 150;

/**
 * `text` whole when it has at most `start + end` characters, else its first `start` and last
 * `end` characters around `… N characters cut …` (N counted in `text`), each part drawn by
 * `draw`: a question stays on the screen, its choices visible, whatever the model sent (trial 47
 * F5: a 10 KB command made a question of 300 rows).
 */
export function middleCut(
  text: string,
  start: number,
  end: number,
  draw: (part: string) => string,
): string {
  const characters = Array.from(text);
  if (characters.length <= start + end) {
    return draw(text);
  }
  const cut = (characters.length - start - end).toLocaleString("en-US");
  const head = draw(characters.slice(0, start).join(""));
  return `${head} … ${cut} characters cut … ${draw(characters.slice(-end).join(""))}`;
}

/** A rule or a note on a choice's row: its control characters marked, its middle cut if long. */
function choiceText(text: string, draw: (part: string) => string): string {
  return middleCut(text, (CHOICE_TEXT_LENGTH * 2) / 3, CHOICE_TEXT_LENGTH / 3, draw);
}

/** The reply for "no" without a reason. */
export const SAID_NO: PermissionReply = {
  decision: "deny",
  scope: "once",
  reason: "the user said no",
};

/**
 * What a key typed at a permission question answers, the same in `-p` on a terminal and in the
 * interactive session: `y` allows once; `a` allows for the session by the exact rule
 * ({@link PermissionRequest.alwaysRule}); `p` by the command's prefix rule when the request
 * offers one ({@link PermissionRequest.prefix}); `t` asks for a reason (`"tell"`); `n` denies.
 * Full words (`yes`, `always`, `prefix`, `tell`, `no`) work too. Undefined for any other key,
 * and for `a` where no "always" answer is offered ({@link answerKeys}).
 */
export function answerFor(
  request: PermissionRequest,
  typed: string,
): PermissionReply | "tell" | undefined {
  switch (typed.trim().toLowerCase()) {
    case "y":
    case "yes":
      return { decision: "allow", scope: "once" };
    case "a":
    case "always":
      return offersAlwaysAnswers(request.sandbox)
        ? { decision: "allow", scope: "session" }
        : undefined;
    case "p":
    case "prefix":
      return request.prefix === undefined
        ? undefined
        : { decision: "allow", scope: "session", rule: request.prefix.rule };
    case "t":
    case "tell":
      return "tell";
    case "n":
    case "no":
      return SAID_NO;
    default:
      return undefined;
  }
}

/**
 * The keys a question answers to, in the order of its choices: `y`, `a` unless the question
 * offers no "always" answer (one to run a command outside the sandbox: permission-mode.ts
 * `offersAlwaysAnswers`), `p` when it offers a prefix rule, `n`, `t`.
 */
export function answerKeys(request: PermissionRequest): string[] {
  return [
    "y",
    ...(offersAlwaysAnswers(request.sandbox) ? ["a"] : []),
    ...(request.prefix === undefined ? [] : ["p"]),
    "n",
    "t",
  ];
}

/** The deny reply for the reason typed after `t`. */
export function toldReply(reason: string): PermissionReply {
  const said = reason.trim();
  return {
    decision: "deny",
    scope: "once",
    reason: said === "" ? "the user said no" : `the user said no: ${said}`,
  };
}

/**
 * The answers to a permission question, in the words and order every face shows them (`-p` on a
 * terminal, the full-screen face, the plain-line face when stdin is a pipe): `[y] yes, once`,
 * `[a] yes, always for bash(npx tape x) in this session` (not for a question to run a command
 * outside the sandbox: {@link answerKeys}), the {@link prefixChoice} when offered, `[n] no`,
 * `[t] no, and tell the model why`. `key` renders the keys (bold on the full screen);
 * each face lays them out at its width (text-wrap.ts `wrapChoices`). Rules quote the command or
 * path: their control characters are drawn as code points, `⟨U+001B⟩` (events/errors.ts
 * markedText), so the rule shown is the rule recorded, and no sequence reaches the terminal.
 */
export function permissionChoices(
  request: PermissionRequest,
  key: (text: string) => string = (text) => text,
): string[] {
  const prefix = prefixChoice(request, key);
  const rule = choiceText(request.alwaysRule, markedText);
  const always = `${key("[a]")} yes, always for ${rule} in this session`;
  return [
    `${key("[y]")} yes, once`,
    ...(offersAlwaysAnswers(request.sandbox) ? [always] : []),
    ...(prefix === undefined ? [] : [prefix]),
    `${key("[n]")} no`,
    `${key("[t]")} no, and tell the model why`,
  ];
}

/** What every face asks after `t`, before the reason is typed. */
export const TELL_QUESTION = "what should the model know?";

/**
 * The prefix answer when the request offers one: `[p] yes, always for bash(npx tape *) in this
 * session` and the command's other parts, which will still ask (`(tail -5 still asks)`).
 */
function prefixChoice(
  request: PermissionRequest,
  key: (text: string) => string,
): string | undefined {
  const prefix = request.prefix;
  if (prefix === undefined) {
    return undefined;
  }
  const note = stillAskedNote(prefix.notCovered);
  const rule = choiceText(prefix.rule, markedText);
  return `${key("[p]")} yes, always for ${rule}${choiceText(` in this session${note}`, argumentText)}`;
}

/**
 * What a question says to a line that is none of its answers ({@link answerFor}), then its
 * prompt again: `"maybe" is not an answer; type y, a, p, n or t > ` (the line cut at 40 characters).
 */
export function notAnAnswer(request: PermissionRequest, typed: string): string {
  const line = typed.trim();
  const shown = line.length > 40 ? `${line.slice(0, 40)}…` : line;
  const keys = answerKeys(request);
  const listed = `${keys.slice(0, -1).join(", ")} or ${keys.at(-1) ?? ""}`;
  return `${JSON.stringify(shown)} is not an answer; type ${listed} > `;
}
