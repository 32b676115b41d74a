/**
 * The rows of `turnloop config`'s text form: a setting's name, its value and where it came from,
 * the values in one column.
 */

/** Ends a row's name (a control character no setting's name holds), until {@link alignedRows}. */
const NAME_END = "\u001f";

export function row(name: string, value: string | undefined, source: string | undefined): string {
  return `${name}${NAME_END}${value ?? "(not set)"}${source === undefined ? "" : `    from ${source}`}`;
}

/** The rows with their values in one column: after the longest name, at least 24 wide. */
export function alignedRows(lines: readonly string[]): string[] {
  const width = Math.max(24, ...lines.map((line) => line.indexOf(NAME_END)));
  return lines.map((line) => {
    const end = line.indexOf(NAME_END);
    return end < 0 ? line : `${line.slice(0, end).padEnd(width)} ${line.slice(end + 1)}`;
  });
}
