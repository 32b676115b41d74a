/**
 * Lines of `events.jsonl` that are JSON with a known event type and a complete envelope, but whose
 * `data` fields do not have their declared types (src/events/events.ts): every reader skips them
 * as `invalid_event` (src/session/log-damage.ts). One per kind of hole, of several event types.
 */

const envelope = (id: string) => ({ id, timestamp: "2026-12-04T00:00:00.000Z" });

/** The lines, each with its `\n`. */
export const BADLY_TYPED_LINES = [
  // A missing required field.
  { type: "assistant.message", data: { content: "hi", messageId: "m1" }, ...envelope("y1") },
  // A wrong primitive type.
  {
    type: "assistant.message",
    data: { content: 5, messageId: "m2", toolRequests: [], finishReason: "stop" },
    ...envelope("y2"),
  },
  { type: "user.message", data: { content: ["x"], source: "user" }, ...envelope("y3") },
  // A wrong array element type.
  {
    type: "assistant.message",
    data: { content: "c", messageId: "m3", toolRequests: [5], finishReason: "stop" },
    ...envelope("y4"),
  },
  { type: "session.plan_updated", data: { entries: [{ content: 1 }] }, ...envelope("y5") },
  {
    type: "session.resume",
    data: { resumeTime: "t", eventCount: 1, repaired: [null] },
    ...envelope("y6"),
  },
  {
    type: "tool.execution_complete",
    data: { toolCallId: "c9", toolName: "view", success: "yes", result: { content: "r" } },
    ...envelope("y7"),
  },
  // A value outside its declared union.
  {
    type: "permission.completed",
    data: { requestId: "r1", toolCallId: "c9", decision: "allowed", scope: "forever" },
    ...envelope("y8"),
  },
].map((line) => `${JSON.stringify(line)}\n`);
