/**
 * How turnloop's faces open what they append to a typed prompt, after a blank line: the
 * interactive face's `@file` blocks (cli/interactive/prompt-input.ts) and `-p`'s piped stdin
 * (cli/prompt-input.ts). Session titles end where the first one begins.
 */
export const ATTACHMENT_OPENINGS = {
  file: "Attached file ",
  stdin: '<attachment source="stdin"',
} as const;
