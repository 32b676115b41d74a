/** See long-session.mjs: a synthetic events.jsonl of `turns` turns, one JSON event per line. */
export function longSessionLog(turns: number): string;
