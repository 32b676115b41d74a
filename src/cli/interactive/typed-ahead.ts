/**
 * Keys typed while turnloop starts, before the input box exists (`turnloop` Enter, then the first
 * prompt and Enter, as one types them): they reach the terminal while it is still in cooked mode,
 * whose ICRNL (termios(3)) turns each Enter's CR into LF as the key arrives. Raw mode, set when the
 * screen starts, hands over what the terminal held as it is, so each Enter came as LF, which
 * the input box reads as Ctrl-J (a new line): the prompt stayed in the box, unsent (trial 38 F1).
 */

/**
 * Makes `terminal` (pi-tui's `ProcessTerminal`, 0.73.1 as pinned) read the first stdin read after
 * it took the terminal, which holds what was typed before, with each LF as the CR that Enter sends
 * in raw mode: every key typed before the input box existed counts, in order, Enter included. A
 * Ctrl-J typed before then was a line end too (cooked mode ends a line on it). Later reads are
 * passed as they come. Does nothing when the terminal's private fields are not pi-tui's (as
 * completion.ts `gatherPastes`).
 */
export function countTypedAhead(terminal: object): void {
  const fields = terminal as {
    setupStdinBuffer?: unknown;
    stdinDataHandler?: (data: string) => void;
  };
  const setup = fields.setupStdinBuffer;
  if (typeof setup !== "function") {
    return;
  }
  fields.setupStdinBuffer = () => {
    setup.call(terminal);
    const handler = fields.stdinDataHandler;
    if (typeof handler === "function") {
      fields.stdinDataHandler = typedAheadGate(handler);
    }
  };
}

/** `pass` given each read, the first with its LFs made CRs (see {@link countTypedAhead}). */
export function typedAheadGate(pass: (data: string) => void): (data: string) => void {
  let first = true;
  return (data: string) => {
    if (first) {
      first = false;
      pass(data.replaceAll("\n", "\r"));
      return;
    }
    pass(data);
  };
}
