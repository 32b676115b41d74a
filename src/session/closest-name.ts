/**
 * The known name a mistyped one was meant to be, for "did you mean" hints: on the command line
 * (cli/argument-suggestions.ts) and in the config files (config.ts).
 */

/**
 * The known name `name` starts (3+ characters given), else the nearest spelling when it is close
 * (Levenshtein distance at most 2, or a third of the name's length), else undefined.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const nearest = known
    .map((option) => ({ option, distance: editDistance(name, option) }))
    .sort((left, right) => left.distance - right.distance)[0];
  // A name cut short (`--allow-all`) names the one it starts; else the nearest spelling.
  const prefixed = known.find((option) => name.length >= 3 && option.startsWith(name));
  const near =
    nearest !== undefined && nearest.distance <= Math.max(2, Math.floor(name.length / 3))
      ? nearest.option
      : undefined;
  return prefixed ?? near;
}

/** Levenshtein distance between two short strings. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
