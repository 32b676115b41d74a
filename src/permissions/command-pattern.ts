/**
 * Command patterns of permission rules (`bash(git log *)`, `mcp(github__*)`): `*` stands for any
 * text, a backslash makes the next character literal.
 */

/**
 * Matches one command's spelling against a pattern where `*` stands for any text and a backslash
 * makes the next character literal (`rm -f \*.o` matches only `rm -f *.o`: permission-mode.ts
 * `exactCommandPattern`); a pattern ending in ` *` also matches the command without arguments
 * (`rm *` matches `rm`).
 */
export function commandMatches(pattern: string, command: string): boolean {
  const pieces = patternPieces(pattern);
  const last = pieces.length - 1;
  const beforeLast = pieces[last - 1];
  if (pieces[last] === ANY && typeof beforeLast === "string" && beforeLast.endsWith(" ")) {
    const bare = [...pieces.slice(0, last - 1), beforeLast.slice(0, -1)];
    if (piecesMatch(bare, command)) {
      return true;
    }
  }
  return piecesMatch(pieces, command);
}

function piecesMatch(pieces: ReadonlyArray<string | typeof ANY>, command: string): boolean {
  if (!pieces.includes(ANY)) {
    return command === pieces.join("");
  }
  const expression = pieces
    .map((piece) => (piece === ANY ? ".*" : piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${expression}$`, "s").test(command);
}

/** The wildcard among a command pattern's pieces. */
const ANY = Symbol("any text");

/** A command pattern's literal characters (`\*` is a star, `\\` a backslash) and its wildcards. */
function patternPieces(pattern: string): Array<string | typeof ANY> {
  const pieces: Array<string | typeof ANY> = [];
  for (let at = 0; at < pattern.length; at++) {
    const character = pattern[at] ?? "";
    if (character === "*") {
      pieces.push(ANY);
      continue;
    }
    const literal = character === "\\" && at + 1 < pattern.length ? pattern[++at] : character;
    const previous = pieces.at(-1);
    if (typeof previous === "string") {
      pieces[pieces.length - 1] = previous + literal;
    } else {
      pieces.push(literal ?? "");
    }
  }
  return pieces;
}

/** Whether `pattern`, read as a command pattern, stands for exactly `command`'s text. */
export function equalsWhole(pattern: string, command: string): boolean {
  const pieces = patternPieces(pattern);
  return pattern === command || (!pieces.includes(ANY) && pieces.join("") === command);
}
