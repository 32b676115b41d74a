/**
 * The session ids turnloop accepts, below every layer that checks one: the stores (which make them
 * directory names, session/paths.ts) and the SDK wire's schemas (protocol/session-settings.ts).
 */

/**
 * Ids we accept: letters, digits, `-` and `_`, starting with a letter or digit, at most 128
 * characters. Our own ids are UUIDs; the wider pattern lets SDK clients pick their own ids (as the
 * Copilot SDK allows) while ruling out `/`, `\`, `.` (so `..` and hidden names), NUL and empty ids.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
