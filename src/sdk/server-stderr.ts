/**
 * Where the stderr of a server `turnloop/sdk` spawns goes when the app names no `onStderr`: to the
 * app's own stderr, line by line, each line prefixed so the developer tells it from the app's own
 * (the server's config warnings and what befalls its connections are written there: README).
 */

/** The prefix of each server line written to the app's stderr. */
export const SERVER_STDERR_PREFIX = "[turnloop server] ";

/**
 * A stderr handler writing each complete line of the text it is given to `write`, prefixed with
 * {@link SERVER_STDERR_PREFIX}; a line still open waits for its end (or for `flush`).
 */
export function prefixedLines(write: (text: string) => void): {
  onStderr: (text: string) => void;
  flush: () => void;
} {
  let open = "";
  return {
    onStderr: (text) => {
      const lines = (open + text).split("\n");
      open = lines.pop() ?? "";
      if (lines.length > 0) {
        write(lines.map((line) => `${SERVER_STDERR_PREFIX}${line}\n`).join(""));
      }
    },
    flush: () => {
      if (open !== "") {
        write(`${SERVER_STDERR_PREFIX}${open}\n`);
        open = "";
      }
    },
  };
}

/**
 * `onStderr` behind a gate: `write` passes text on at once unless `hold`; held text waits for
 * `release`, which passes it on in order and lets all later text through.
 */
export function heldUntilReleased(
  onStderr: (text: string) => void,
  hold: boolean,
): { write: (text: string) => void; release: () => void } {
  let held: string[] | undefined = hold ? [] : undefined;
  return {
    write: (text) => {
      if (held === undefined) {
        onStderr(text);
      } else {
        held.push(text);
      }
    },
    release: () => {
      const texts = held ?? [];
      held = undefined;
      for (const text of texts) {
        onStderr(text);
      }
    },
  };
}
