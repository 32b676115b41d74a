/** The grep arguments after defaults and aliases (`ignore_case` → `-i`, `context` → `-C`). */
export interface GrepOptions {
  pattern: string;
  /** As the model gave it: relative to the cwd or absolute; results are shown the same way. */
  path: string | undefined;
  glob: string | undefined;
  type: string | undefined;
  outputMode: "content" | "files_with_matches" | "count";
  ignoreCase: boolean;
  /** Prefix content lines with their line number (`path:3:text`); default true. */
  lineNumbers: boolean;
  linesAfter: number;
  linesBefore: number;
  /** Result lines (content) or files (other modes) to show. */
  headLimit: number;
  /** Let the pattern span lines; `.` then matches newlines too. */
  multiline: boolean;
}
