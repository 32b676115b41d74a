import type { EventInput, SessionEvent } from "../events/events.js";
import {
  ANYWHERE_LENGTH,
  type Replacements,
  releaseRedacted,
  replacementsOf,
  type SecretValue,
  secretValues,
  textRedactor,
  WORD_CHARACTER,
} from "../events/secrets.js";
import { holdsLongString } from "./event-line.js";

/**
 * A text rewriter that replaces the values of secret-looking environment variables
 * ({@link secretValues}) with `[redacted:NAME]` where they stand as a value (a whole token, or
 * anywhere for one of 16 characters or more: see `textRedactor`), so keys never reach
 * `events.jsonl` even when a tool prints them.
 */
export function secretRedactor(environment: NodeJS.ProcessEnv): (text: string) => string {
  return textRedactor(secretValues(environment));
}

/**
 * An event rewriter with the replacements of {@link secretRedactor} (and of `secretVariables`,
 * secrets whatever their names), applied to every string in
 * the event's `data` (keys included), each string on its own, so its ends bound a secret. A
 * session applies it once, before the event is written, folded into the history or sent to
 * anyone, so what a client sees, what the model is sent next and what a resumed session reads are
 * the same text. Returns the input itself when nothing matched.
 */
export function eventRedactor(
  environment: NodeJS.ProcessEnv,
  secretVariables: readonly string[] = [],
): (input: EventInput) => EventInput {
  return redactorOf(secretValues(environment, secretVariables));
}

/** {@link eventRedactor} of `secrets`. */
function redactorOf(secrets: readonly SecretValue[]): (input: EventInput) => EventInput {
  if (secrets.length === 0) {
    return (input) => input;
  }
  const redactText = textRedactor(secrets);
  const values = secrets.map(({ value }) => value);
  // Each secret as it appears inside a JSON string: if none is in the data's JSON, no string holds
  // one, and the data is not walked.
  const escaped = values.map((value) => JSON.stringify(value).slice(1, -1));
  const jsonHoldsSecret = (data: unknown) => textHoldsSecret(JSON.stringify(data), escaped);
  return (input) => {
    if (!eventHoldsSecret(input, values, jsonHoldsSecret)) {
      return input;
    }
    const data = redactStrings(input.data, redactText);
    return data === input.data ? input : ({ ...input, data } as EventInput);
  };
}

/**
 * Whose secrets a session redacts: those of `environment` (default: `process.env`) and of
 * `secretVariables` whatever their names ({@link eventRedactor}).
 */
export interface RedactionOptions {
  environment?: NodeJS.ProcessEnv;
  secretVariables?: readonly string[];
}

/** Where a session's redacted events go: recorded, or (a delta held back whole) only enveloped. */
export interface RedactedEvents {
  record(input: EventInput): SessionEvent;
  envelope(input: EventInput): SessionEvent;
}

type Delta = Extract<EventInput, { type: "assistant.message_delta" | "assistant.reasoning_delta" }>;

/** One streamed text of a message (its answer or its reasoning) and its redactor. */
interface StreamedText {
  messageId: string;
  redactor: TextStreamRedactor;
}

/**
 * Events that end the streamed texts of their message (its tool call, the message, its turn's
 * end): what was held back of them is shown first. The other kind of delta ends a text too
 * (reasoning ends where the answer starts).
 */
const ENDS_STREAMED_TEXT: ReadonlySet<EventInput["type"]> = new Set([
  "assistant.tool_call_start",
  "assistant.message",
  "assistant.turn_end",
]);

/**
 * A session's redaction of its events ({@link eventRedactor}), with the streamed texts of a
 * message (`assistant.message_delta`, `assistant.reasoning_delta`) redacted as one text each
 * however the model's pieces cut a secret (`TextStreamRedactor`): a delta shows at once what
 * cannot begin a secret, and holds back the end that could (`sk-a` of a key `sk-abc…`) until the
 * next delta of the same text, or until the text ends (the other kind of delta, the message's tool
 * call, its `assistant.message`, its turn's end), when it is shown as a delta of its own. The
 * deltas of a text, joined, are its whole text redacted, as its `assistant.message` holds it; no
 * face sees a secret in halves. A delta held back whole is delivered to no one.
 */
export class EventRedaction {
  /** The redaction of one event on its own. */
  readonly redact: (input: EventInput) => EventInput;
  private readonly secrets: readonly SecretValue[];
  private answer: StreamedText | undefined;
  private reasoning: StreamedText | undefined;

  /** Redacts the secrets {@link RedactionOptions} name in the events handed to `events`. */
  constructor(
    options: RedactionOptions,
    private readonly events: RedactedEvents,
  ) {
    this.secrets = secretValues(options.environment ?? process.env, options.secretVariables);
    this.redact = redactorOf(this.secrets);
  }

  /** Hands `input` redacted to `record` of its events; @returns the event (enveloped). */
  record(input: EventInput): SessionEvent {
    if (this.secrets.length === 0) {
      return this.events.record(input);
    }
    if (input.type === "assistant.message_delta") {
      this.end(this.reasoning, "assistant.reasoning_delta");
      this.answer = this.streamed(this.answer, input);
      return this.shown(input, this.answer.redactor.push(input.data.deltaContent));
    }
    if (input.type === "assistant.reasoning_delta") {
      this.end(this.answer, "assistant.message_delta");
      this.reasoning = this.streamed(this.reasoning, input);
      return this.shown(input, this.reasoning.redactor.push(input.data.deltaContent));
    }
    if (ENDS_STREAMED_TEXT.has(input.type)) {
      this.end(this.answer, "assistant.message_delta");
      this.end(this.reasoning, "assistant.reasoning_delta");
    }
    return this.events.record(this.redact(input));
  }

  /** The stream of `delta`'s message: `text`, or a new one (what `text` held shown first). */
  private streamed(text: StreamedText | undefined, delta: Delta): StreamedText {
    const { messageId } = delta.data;
    if (text?.messageId === messageId) {
      return text;
    }
    this.end(text, delta.type);
    return { messageId, redactor: new TextStreamRedactor(this.secrets) };
  }

  /** Shows what `text` held back, if anything, as a `type` delta of its own. */
  private end(text: StreamedText | undefined, type: Delta["type"]): void {
    if (text?.redactor.holding !== true) {
      return;
    }
    const deltaContent = text.redactor.end();
    if (deltaContent !== "") {
      this.events.record({ type, data: { messageId: text.messageId, deltaContent } });
    }
  }

  /** Records `delta` showing `shown` of its text (itself when unchanged); enveloped alone when empty. */
  private shown(delta: Delta, shown: string): SessionEvent {
    if (shown === delta.data.deltaContent) {
      return this.events.record(delta);
    }
    const data = { messageId: delta.data.messageId, deltaContent: shown };
    const input = { type: delta.type, data };
    return shown === "" ? this.events.envelope(input) : this.events.record(input);
  }
}

/**
 * Whether a string of `input`'s data may hold one of `secrets`, searched the cheapest way for its
 * shape. A streamed delta (`assistant.message_delta`, `assistant.reasoning_delta`, one per model
 * chunk) is searched in its `deltaContent`, the model's text, where it is: its other field,
 * `messageId`, is a UUID of ours (agent/model-turn.ts), and `JSON.stringify` of every delta was
 * most of the redactor's cost while an answer streamed (bench/notes/relay33.md). Data holding a
 * long string is walked ({@link holdsSecret}); any other data is searched through its JSON
 * (`searchJson`).
 */
function eventHoldsSecret(
  input: EventInput,
  secrets: readonly string[],
  searchJson: (data: unknown) => boolean,
): boolean {
  if (input.type === "assistant.message_delta" || input.type === "assistant.reasoning_delta") {
    return textHoldsSecret(input.data.deltaContent, secrets);
  }
  return holdsLongString(input.data) ? holdsSecret(input.data, secrets) : searchJson(input.data);
}

/** Whether `text` contains one of `secrets`. */
function textHoldsSecret(text: string, secrets: readonly string[]): boolean {
  for (const secret of secrets) {
    if (text.includes(secret)) {
      return true;
    }
  }
  return false;
}

/**
 * Whether a string in `value` (a key or a value, at any depth) contains one of `secrets`: only
 * then can {@link redactStrings} change anything. Used for data holding a string of a mebibyte or
 * more (a huge `user.message`, a tool result), read where it is: its JSON was a second copy of
 * the text (a 7.3 MiB prompt's `-p` run peaked 14 MiB higher). Other data is searched through its
 * JSON: walking every event's data cost a 40-tool-turn `-p` run 2-3 % more instructions
 * (bench/notes/turn21.md). Objects that are not plain data are searched through their JSON, as
 * {@link redactStrings} rewrites them.
 */
function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (typeof value === "string") {
    return textHoldsSecret(value, secrets);
  }
  if (typeof value !== "object" || value === null) {
    return false;
  }
  if (Array.isArray(value)) {
    return value.some((item) => holdsSecret(item, secrets));
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    const text: string | undefined = JSON.stringify(value);
    return text !== undefined && holdsSecret(JSON.parse(text), secrets);
  }
  for (const key in value) {
    if (holdsSecret(key, secrets) || holdsSecret((value as JsonRecord)[key], secrets)) {
      return true;
    }
  }
  return false;
}

type JsonRecord = Record<string, unknown>;

/** `value` with `redact` applied to every string in it; `value` itself when none changed. */
function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") {
    return redact(value);
  }
  if (typeof value !== "object" || value === null) {
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => redactStrings(item, redact));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    // Not plain data (a Date, a class): what is written is its JSON.
    return redactStrings(JSON.parse(JSON.stringify(value)), redact);
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const entry = [redact(key), redactStrings(item, redact)] as const;
    changed ||= entry[0] !== key || entry[1] !== item;
    return entry;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * Replaces secrets in a text that arrives in pieces (a model's streamed answer) as
 * `textRedactor` (events/secrets.ts) does in the whole text, however the pieces cut a secret,
 * and without delaying other text: of each piece only the end that could begin a secret is held
 * back (the longest end of the text so far that is the start of a secret, or a whole short
 * secret, whose end bound the next character decides), and shown with the next piece or by
 * {@link end}. The pieces returned, joined, are the whole text redacted. Memory: the held end,
 * shorter than the longest secret.
 */
export class TextStreamRedactor {
  private readonly replacements: Replacements | undefined;
  /** Each secret's text, and whether a word character after it keeps it (a short one). */
  private readonly secrets: { text: string; startBound: boolean; endBound: boolean }[];
  /** The text received and not yet returned, unredacted. */
  private pending = "";
  /** The last character returned (as received), which bounds a secret at the start of `pending`. */
  private before = "";

  constructor(secrets: readonly SecretValue[]) {
    this.replacements = replacementsOf(secrets, (value) => value);
    this.secrets = [...(this.replacements?.markers.keys() ?? [])].map((text) => ({
      text,
      startBound: text.length < ANYWHERE_LENGTH && WORD_CHARACTER.test(text.charAt(0)),
      endBound: text.length < ANYWHERE_LENGTH && WORD_CHARACTER.test(text.charAt(text.length - 1)),
    }));
  }

  /** Whether the end of the text so far is held back. */
  get holding(): boolean {
    return this.pending !== "";
  }

  /** What of the text so far can be shown now, redacted: `piece` itself when nothing changed. */
  push(piece: string): string {
    if (this.replacements === undefined) {
      return piece;
    }
    const text = this.pending === "" ? piece : this.pending + piece;
    return this.release(text, text.length - this.heldLength(text));
  }

  /** What was held back, redacted, at the end of the text. */
  end(): string {
    return this.release(this.pending, this.pending.length);
  }

  /**
   * The length of the longest end of `text` that a secret may go on from: a secret's start (its
   * whole text for one with an end bound), not glued to a word before it when it has a start bound.
   */
  private heldLength(text: string): number {
    let held = 0;
    for (const { text: secret, startBound, endBound } of this.secrets) {
      const most = Math.min(text.length, endBound ? secret.length : secret.length - 1);
      for (let length = most; length > held; length--) {
        const at = text.length - length;
        if (text.charCodeAt(at) === secret.charCodeAt(0) && startsAt(text, at, secret, length)) {
          const previous = at === 0 ? this.before : text.charAt(at - 1);
          if (!startBound || !WORD_CHARACTER.test(previous)) {
            held = length;
            break;
          }
        }
      }
    }
    return held;
  }

  /** Whether `text` contains a secret (a loop: no closure made per piece). */
  private holdsSecret(text: string): boolean {
    for (const { text: secret } of this.secrets) {
      if (text.includes(secret)) {
        return true;
      }
    }
    return false;
  }

  /** `text` redacted up to `limit` (or the end of a secret that starts before it); keeps the rest. */
  private release(text: string, limit: number): string {
    if (this.replacements === undefined || text === "") {
      return "";
    }
    if (!this.holdsSecret(text)) {
      this.pending = limit === text.length ? "" : text.slice(limit);
      this.before = limit === 0 ? this.before : text.charAt(limit - 1);
      return limit === text.length ? text : text.slice(0, limit);
    }
    const released = releaseRedacted(this.replacements, this.before, text, limit);
    this.before = released.before;
    this.pending = released.pending;
    return released.output;
  }
}

/** Whether `text` holds the first `length` characters of `secret` at `at`. */
function startsAt(text: string, at: number, secret: string, length: number): boolean {
  for (let index = 1; index < length; index++) {
    if (text.charCodeAt(at + index) !== secret.charCodeAt(index)) {
      return false;
    }
  }
  return true;
}
