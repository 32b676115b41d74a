/**
 * What the start of a JSON-RPC message over the size limit tells about it (acp/framing.ts for a
 * line, server/framing.ts for a frame's body): the members of its top-level object before the
 * first nested object or array opens. Clients write `jsonrpc`, `id` and `method` or
 * `result`/`error` before the bulk (`{"jsonrpc":"2.0","id":7,"result":{…`), so the head is enough
 * to tell a request from a response to one of ours, and to find its id.
 */
export interface MessageHead {
  /** The `id` member's JSON text (a number or a string), when it comes before any nesting. */
  id: string | undefined;
  /**
   * `request` when a `method` member was seen (a notification too: it has no `id`), `response`
   * when `result` or `error` was and no `method`, `unknown` when neither came before the nesting.
   */
  kind: "request" | "response" | "unknown";
  /**
   * Only for a head read so far (`complete: false`): whether more of it could still add members
   * (it ends inside the member list, perhaps inside a member, which is not counted).
   */
  open: boolean;
}

/** One member: a key, then a string, number, literal, or the opening of a nested value. */
const MEMBER =
  /\s*"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{[])\s*(,?)/y;

/**
 * Reads `head`, the first characters of a message; `complete: false` when more of them may come
 * (then a member that reaches the end of `head` may be cut short, and is left out). See
 * {@link MessageHead}.
 */
export function lineHead(head: string, complete = true): MessageHead {
  const keys = new Set<string>();
  let id: string | undefined;
  const start = /^\s*\{/.exec(head);
  let position = start === null ? head.length : start[0].length;
  let ended = start === null && head.trim() !== "";
  for (;;) {
    MEMBER.lastIndex = position;
    const member = MEMBER.exec(head);
    if (member === null || (!complete && MEMBER.lastIndex >= head.length)) {
      const rest = head.slice(position).trimStart();
      ended ||= rest !== "" && !rest.startsWith('"');
      break;
    }
    position = MEMBER.lastIndex;
    const [, key = "", value = "", comma] = member;
    keys.add(key);
    if (key === "id" && (value.startsWith('"') || /^-?\d+$/.test(value))) {
      id = value;
    }
    if (value === "{" || value === "[" || comma === "") {
      ended = true;
      break;
    }
  }
  const kind = keys.has("method")
    ? "request"
    : keys.has("result") || keys.has("error")
      ? "response"
      : "unknown";
  return { id, kind, open: !complete && !ended };
}

/**
 * Whether `id` can name a request: a string, or a number that is a whole number JSON parsers keep
 * exactly (a safe integer, at most 2^53 − 1 either way). JSON-RPC 2.0 (section 4, Request object):
 * "Numbers SHOULD NOT contain fractional parts"; a larger whole number comes back rounded
 * (`123456789012345678901234567890` as `1.2345678901234568e+29`), and the client that sent it
 * would never find its answer. Both faces hold ids to this rule: server/invalid-messages.ts and acp/framing.ts.
 */
export function usableRequestId(id: unknown): id is string | number {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** Why `id` cannot name a request, for an error message; {@link usableRequestId} tells when. */
export function requestIdProblem(id: unknown): string {
  const shown = typeof id === "number" ? String(id) : JSON.stringify(id);
  return `a request's id must be a string or a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, not ${shown}`;
}
