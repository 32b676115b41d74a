/**
 * Pieces of the `session/update` notifications the ACP tests expect, for whole-array comparisons
 * of what a client is shown (paths as `normalise` in ./support.ts writes them, under `<cwd>`).
 */

/**
 * What a `tool_call` or `tool_call_update` says of a `view` call of `path` once its arguments are
 * complete: its title, kind and location (as src/tools/view.ts describes the call) and raw input.
 */
export function viewOf(path: string) {
  return {
    title: `Read ${path}`,
    kind: "read",
    rawInput: { path },
    locations: [{ path: `<cwd>/${path}` }],
  };
}

/** The `tool_call_update` that completes call `toolCallId` with one text block, `text`. */
export function completedWithText(toolCallId: string, text: string) {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text } }],
  };
}

/**
 * The `tool_call` a client is shown as soon as the model starts call `toolCallId`: pending,
 * titled by the tool's name `name`, of kind `kind`.
 */
export function announced(toolCallId: string, name: string, kind: string) {
  return { sessionUpdate: "tool_call", toolCallId, title: name, kind, status: "pending" };
}

/**
 * The `tool_call_update` that describes call `toolCallId` once its arguments are complete: its
 * `title` and `kind`, its arguments as `rawInput`, and the `locations` it touches.
 */
export function described(
  toolCallId: string,
  title: string,
  kind: string,
  rawInput: Record<string, unknown>,
  locations: Array<{ path: string }> = [],
) {
  return { sessionUpdate: "tool_call_update", toolCallId, title, kind, rawInput, locations };
}

/** The `tool_call_update` saying call `toolCallId` runs (after any permission question). */
export function inProgress(toolCallId: string) {
  return { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" };
}
