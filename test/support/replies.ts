import type { SemanticReply } from "./fake-model-types.js";

/** One tool call a model reply makes: its id, the tool's name and the arguments (an object). */
export type CallOf = [id: string, name: string, input: Record<string, unknown>];

/** A model reply that calls `calls` in order (their arguments JSON-encoded, as the wire sends them). */
export function callingTools(...calls: CallOf[]): SemanticReply {
  return {
    toolCalls: calls.map(([id, name, input]) => ({ id, name, arguments: JSON.stringify(input) })),
  };
}
