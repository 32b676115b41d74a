import { ProcessTerminal } from "@mariozechner/pi-tui";
import { describe, expect, test } from "vitest";
import { pasteGate } from "../../src/cli/interactive/completion.js";
import { gateStdinReads } from "../../src/cli/interactive/screen.js";

// pi-tui's StdinBuffer searched the whole paste so far at every read of it (a 5 MB paste read in
// pieces: 16–20 s of CPU, bench/notes/memory29.md); the gate hands it each paste whole, once.
const START = "\x1b[200~";
const END = "\x1b[201~";

/** What `pass` is given when `reads` come through the gate, one array item per call. */
function through(reads: readonly string[]): string[] {
  const passed: string[] = [];
  const gate = pasteGate((data) => passed.push(data));
  for (const read of reads) {
    gate(read);
  }
  return passed;
}

describe("a bracketed paste read in pieces", () => {
  test("reaches pi-tui whole, in one call, its end marker split between reads or not", () => {
    const paste = `${START}${"line of a log\n".repeat(1000)}${END}`;
    for (const size of [6, 7, 8, 9, 10, 11, 100, 4096]) {
      const reads: string[] = [];
      for (let at = 0; at < paste.length; at += size) {
        reads.push(paste.slice(at, at + size));
      }
      expect(through(reads)).toEqual([paste]);
    }
  });

  test("a start marker split between two reads is left to pi-tui: the reads pass as they came", () => {
    expect(through(["\x1b[20", `0~paste${END}`])).toEqual(["\x1b[20", `0~paste${END}`]);
  });

  test("keys before and after a paste pass as they came, in order", () => {
    expect(through(["ab", `c${START}pa`, `ste${END}d`, "e"])).toEqual([
      "ab",
      "c",
      `${START}paste${END}`,
      "d",
      "e",
    ]);
    expect(through([`${START}one${END}${START}two${END}x`])).toEqual([
      `${START}one${END}`,
      `${START}two${END}`,
      "x",
    ]);
  });

  test("the pinned pi-tui's terminal has the fields the gate takes over", () => {
    const terminal = new ProcessTerminal() as unknown as { setupStdinBuffer: unknown };
    const before = terminal.setupStdinBuffer;
    expect(typeof before).toBe("function");
    gateStdinReads(terminal, pasteGate);
    expect(terminal.setupStdinBuffer).not.toBe(before);
  });
});
