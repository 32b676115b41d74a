/**
 * A streamed text that holds an API key once for each place a model's pieces can cut it: its
 * `pieces` (one delta each) cut the key's first occurrence after its first character, the second
 * after its second, and so on to its last. `shown` is what every face must show of it, piece by
 * piece: all but the end that could begin the key at once, the key only whole, redacted
 * (session/secrets.ts `EventRedaction`).
 */

/** The API key (an environment variable's value) the streams cut. */
export const SPLIT_KEY = "sk-live-0123456789abcdefghij";
/** The variable that holds {@link SPLIT_KEY}: secret by its name, so its value is redacted. */
export const SPLIT_KEY_VARIABLE = "OPENAI_API_KEY";
/** What stands for the key wherever a face shows it. */
export const REDACTED_KEY = `[redacted:${SPLIT_KEY_VARIABLE}]`;

/** The pieces a model streams and what a face shows of them, for one text named `label`. */
export interface SplitKeyText {
  /** The model's deltas, in order. */
  pieces: string[];
  /** The deltas a face shows, in order: a piece's text up to where the key may begin. */
  shown: string[];
  /** The whole text as every face shows it once complete: `shown` joined. */
  text: string;
}

/** The text `label` cutting {@link SPLIT_KEY} at every place, one line per cut. */
export function keyCutEverywhere(label: string): SplitKeyText {
  const pieces: string[] = [];
  const shown: string[] = [];
  for (let cut = 1; cut < SPLIT_KEY.length; cut++) {
    const line = `${label} ${cut}: `;
    pieces.push(
      `${cut === 1 ? "" : `${SPLIT_KEY.slice(cut - 1)}\n`}${line}${SPLIT_KEY.slice(0, cut)}`,
    );
    shown.push(`${cut === 1 ? "" : `${REDACTED_KEY}\n`}${line}`);
  }
  pieces.push(`${SPLIT_KEY.slice(-1)}\nend of ${label}.`);
  shown.push(`${REDACTED_KEY}\nend of ${label}.`);
  return { pieces, shown, text: shown.join("") };
}
