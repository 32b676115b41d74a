/**
 * What the start of a JSON-RPC line over the size limit tells about it (framing.ts): the members
 * of its top-level object before the first nested object or array opens. Clients write `jsonrpc`,
 * `id` and `method` or `result`/`error` before the bulk (`{"jsonrpc":"2.0","id":7,"result":{…`),
 * so the head is enough to tell a request from a response to one of ours, and to find its id.
 */
export interface LineHead {
  /** The `id` member's JSON text (a number or a string), when it comes before any nesting. */
  id: string | undefined;
  /**
   * `request` when a `method` member was seen (a notification too: it has no `id`), `response`
   * when `result` or `error` was and no `method`, `unknown` when neither came before the nesting.
   */
  kind: "request" | "response" | "unknown";
}

/** One member: a key, then a string, number, literal, or the opening of a nested value. */
const MEMBER =
  /\s*"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{[])\s*(,?)/y;

/** Reads `head` (the first characters of a line); see {@link LineHead}. */
export function lineHead(head: string): LineHead {
  const keys = new Set<string>();
  let id: string | undefined;
  const start = /^\s*\{/.exec(head);
  MEMBER.lastIndex = start === null ? head.length : start[0].length;
  for (let member = MEMBER.exec(head); member !== null; member = MEMBER.exec(head)) {
    const [, key = "", value = "", comma] = member;
    keys.add(key);
    if (key === "id" && (value.startsWith('"') || /^-?\d+$/.test(value))) {
      id = value;
    }
    if (value === "{" || value === "[" || comma === "") {
      break;
    }
  }
  const kind = keys.has("method")
    ? "request"
    : keys.has("result") || keys.has("error")
      ? "response"
      : "unknown";
  return { id, kind };
}
