import type {
  Finish,
  ScriptedToolCall,
  SemanticReply,
  SseEvent,
  Usage,
  Wire,
} from "./fake-model-types.js";
import type { JsonObject, JsonValue } from "./json.js";

/** What a rendering needs besides the reply: ids unique across the server's lifetime, the model. */
export interface RenderContext {
  /** a number unique per reply, used in every id the wire generates */
  sequence: number;
  model: string;
  /** unix seconds, as every wire reports creation time */
  createdAt: number;
}

const defaultUsage: Usage = { input: 10, output: 5 };

export function renderReply(wire: Wire, reply: SemanticReply, context: RenderContext): SseEvent[] {
  switch (wire) {
    case "openai-chat":
      return renderChat(reply, context);
    case "openai-responses":
      return renderResponses(reply, context);
    case "anthropic":
      return renderAnthropic(reply, context);
  }
}

/** The pieces to stream; empty ones are dropped, as real servers send no empty deltas. */
export function pieces(value: string | string[] | undefined): string[] {
  if (value === undefined) {
    return [];
  }
  return (typeof value === "string" ? [value] : value).filter((piece) => piece !== "");
}

export function joined(value: string | string[] | undefined): string {
  return pieces(value).join("");
}

export function finishOf(reply: SemanticReply): Finish {
  return reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
}

function usageOf(reply: SemanticReply): Usage | undefined {
  return reply.usage === null ? undefined : (reply.usage ?? defaultUsage);
}

function json(value: JsonValue): string {
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- OpenAI Chat Completions

function renderChat(reply: SemanticReply, context: RenderContext): SseEvent[] {
  const envelope = {
    id: `chatcmpl-${context.sequence}`,
    object: "chat.completion.chunk",
    created: context.createdAt,
    model: context.model,
  };
  const chunk = (choices: JsonValue[], extra: JsonObject = {}): SseEvent => ({
    data: json({ ...envelope, choices, ...extra }),
  });
  const split = reply.splitChoices === true;
  const delta = (fields: JsonObject, finishReason: string | null = null, choice = 0): SseEvent =>
    chunk([{ index: choice, delta: fields, logprobs: null, finish_reason: finishReason }]);

  const events: SseEvent[] = [delta({ role: "assistant", content: "" })];
  for (const piece of pieces(reply.reasoning)) {
    events.push(delta({ reasoning_content: piece }));
  }
  for (const piece of pieces(reply.text)) {
    events.push(delta({ content: piece }));
  }
  if (split) {
    events.push(delta({}, "stop"));
  }
  (reply.toolCalls ?? []).forEach((call, position) => {
    // Split: each call is the only call (index 0) of its own choice, as the Copilot API sends.
    const choice = split ? position + 1 : 0;
    const index = split ? 0 : position;
    const opening = {
      index,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: "" },
    };
    events.push(delta({ tool_calls: [opening] }, null, choice));
    for (const piece of pieces(call.arguments)) {
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }, null, choice));
    }
    if (split) {
      events.push(delta({}, "tool_calls", choice));
    }
  });
  if (!split) {
    events.push(delta({}, finishOf(reply)));
  }
  const usage = usageOf(reply);
  if (usage !== undefined) {
    events.push(chunk([], { usage: chatUsage(usage) }));
  }
  events.push({ data: "[DONE]" });
  return events;
}

/**
 * The reply as a non-streaming Chat Completions body (the request had no `stream: true`);
 * `splitChoices` puts the text and each tool call in choices of their own.
 */
export function renderChatCompletion(reply: SemanticReply, context: RenderContext): JsonObject {
  const text = reply.text === undefined ? null : joined(reply.text);
  const calls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: joined(call.arguments) },
  }));
  const message = (content: string | null, toolCalls: JsonValue[]): JsonObject => ({
    role: "assistant",
    content,
    ...(reply.reasoning === undefined ? {} : { reasoning_content: joined(reply.reasoning) }),
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
  });
  const choices: JsonValue[] =
    reply.splitChoices === true
      ? [
          { index: 0, message: message(text, []), finish_reason: "stop" },
          ...calls.map((call, position) => ({
            index: position + 1,
            message: message(null, [call]),
            finish_reason: "tool_calls",
          })),
        ]
      : [{ index: 0, message: message(text, calls), finish_reason: finishOf(reply) }];
  const usage = usageOf(reply);
  return {
    id: `chatcmpl-${context.sequence}`,
    object: "chat.completion",
    created: context.createdAt,
    model: context.model,
    choices,
    ...(usage === undefined ? {} : { usage: chatUsage(usage) }),
  };
}

function chatUsage(usage: Usage): JsonObject {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: {
      cached_tokens: usage.cacheRead ?? 0,
      ...(usage.cacheWrite === undefined ? {} : { cache_write_tokens: usage.cacheWrite }),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

// ---------------------------------------------------------------- OpenAI Responses

function renderResponses(reply: SemanticReply, context: RenderContext): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, fields: JsonObject): void => {
    events.push({ event: type, data: json({ type, sequence_number: events.length, ...fields }) });
  };
  const responseId = `resp_${context.sequence}`;
  const header = {
    id: responseId,
    object: "response",
    created_at: context.createdAt,
    model: context.model,
  };
  emit("response.created", {
    response: { ...header, status: "in_progress", output: [], usage: null },
  });
  const output: JsonValue[] = [];
  if (reply.reasoning !== undefined || reply.encryptedReasoning !== undefined) {
    output.push(responsesReasoning(reply, `rs_${context.sequence}`, output.length, emit));
  }
  if (reply.text !== undefined) {
    output.push(responsesMessage(reply, `msg_${context.sequence}`, output.length, emit));
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    output.push(
      responsesFunctionCall(call, `fc_${context.sequence}_${index}`, output.length, emit),
    );
  });
  const finish = finishOf(reply);
  const incompleteReason =
    finish === "length"
      ? "max_output_tokens"
      : finish === "content_filter"
        ? "content_filter"
        : undefined;
  const usage = usageOf(reply);
  emit(incompleteReason === undefined ? "response.completed" : "response.incomplete", {
    response: {
      ...header,
      status: incompleteReason === undefined ? "completed" : "incomplete",
      incomplete_details: incompleteReason === undefined ? null : { reason: incompleteReason },
      output,
      ...(usage === undefined ? {} : { usage: responsesUsage(usage) }),
    },
  });
  return events;
}

type Emit = (type: string, fields: JsonObject) => void;

function responsesReasoning(
  reply: SemanticReply,
  itemId: string,
  outputIndex: number,
  emit: Emit,
): JsonObject {
  const encrypted: JsonObject =
    reply.encryptedReasoning === undefined ? {} : { encrypted_content: reply.encryptedReasoning };
  // The SDK keys its reasoning state on output_item.added; a done without it would crash its parser.
  emit("response.output_item.added", {
    output_index: outputIndex,
    item: { type: "reasoning", id: itemId, summary: [], ...encrypted },
  });
  const summary: JsonValue[] = [];
  if (reply.reasoning !== undefined) {
    const where = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
    const text = joined(reply.reasoning);
    emit("response.reasoning_summary_part.added", {
      ...where,
      part: { type: "summary_text", text: "" },
    });
    for (const piece of pieces(reply.reasoning)) {
      emit("response.reasoning_summary_text.delta", { ...where, delta: piece });
    }
    emit("response.reasoning_summary_text.done", { ...where, text });
    emit("response.reasoning_summary_part.done", {
      ...where,
      part: { type: "summary_text", text },
    });
    summary.push({ type: "summary_text", text });
  }
  return itemDone(emit, outputIndex, { type: "reasoning", id: itemId, summary, ...encrypted });
}

function responsesMessage(
  reply: SemanticReply,
  itemId: string,
  outputIndex: number,
  emit: Emit,
): JsonObject {
  const where = { item_id: itemId, output_index: outputIndex, content_index: 0 };
  const text = joined(reply.text);
  const message = { type: "message", id: itemId, role: "assistant" };
  emit("response.output_item.added", {
    output_index: outputIndex,
    item: { ...message, status: "in_progress", content: [] },
  });
  emit("response.content_part.added", {
    ...where,
    part: { type: "output_text", text: "", annotations: [] },
  });
  for (const piece of pieces(reply.text)) {
    emit("response.output_text.delta", { ...where, delta: piece, logprobs: [] });
  }
  emit("response.output_text.done", { ...where, text, logprobs: [] });
  const part = { type: "output_text", text, annotations: [] };
  emit("response.content_part.done", { ...where, part });
  return itemDone(emit, outputIndex, { ...message, status: "completed", content: [part] });
}

function responsesFunctionCall(
  call: ScriptedToolCall,
  itemId: string,
  outputIndex: number,
  emit: Emit,
): JsonObject {
  const where = { item_id: itemId, output_index: outputIndex };
  const item = { type: "function_call", id: itemId, call_id: call.id, name: call.name };
  emit("response.output_item.added", {
    output_index: outputIndex,
    item: { ...item, arguments: "", status: "in_progress" },
  });
  for (const piece of pieces(call.arguments)) {
    emit("response.function_call_arguments.delta", { ...where, delta: piece });
  }
  const argumentsText = joined(call.arguments);
  emit("response.function_call_arguments.done", { ...where, arguments: argumentsText });
  return itemDone(emit, outputIndex, { ...item, arguments: argumentsText, status: "completed" });
}

/** Emits `response.output_item.done` for the finished `item` at `outputIndex`; returns `item`. */
function itemDone(emit: Emit, outputIndex: number, item: JsonObject): JsonObject {
  emit("response.output_item.done", { output_index: outputIndex, item });
  return item;
}

function responsesUsage(usage: Usage): JsonObject {
  return {
    input_tokens: usage.input,
    input_tokens_details: {
      cached_tokens: usage.cacheRead ?? 0,
      ...(usage.cacheWrite === undefined ? {} : { cache_write_tokens: usage.cacheWrite }),
    },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: usage.input + usage.output,
  };
}

// ---------------------------------------------------------------- Anthropic Messages

const anthropicStopReasons: Record<Finish, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

function renderAnthropic(reply: SemanticReply, context: RenderContext): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, fields: JsonObject = {}): void => {
    events.push({ event: type, data: json({ type, ...fields }) });
  };
  // Anthropic always reports usage and the SDK's schema requires it, so "no usage" becomes zeros.
  const usage = usageOf(reply) ?? { input: 0, output: 0 };
  emit("message_start", { message: anthropicMessage(context, usage) });
  emit("ping");
  let index = 0;
  const block = (start: JsonObject, deltas: JsonObject[]): void => {
    emit("content_block_start", { index, content_block: start });
    for (const delta of deltas) {
      emit("content_block_delta", { index, delta });
    }
    emit("content_block_stop", { index });
    index += 1;
  };
  if (reply.reasoning !== undefined) {
    const thinking = pieces(reply.reasoning).map((piece) => ({
      type: "thinking_delta",
      thinking: piece,
    }));
    const signature =
      reply.reasoningSignature === undefined
        ? []
        : [{ type: "signature_delta", signature: reply.reasoningSignature }];
    block({ type: "thinking", thinking: "", signature: "" }, [...thinking, ...signature]);
  } else if (reply.encryptedReasoning !== undefined) {
    block({ type: "redacted_thinking", data: reply.encryptedReasoning }, []);
  }
  if (reply.text !== undefined) {
    block(
      { type: "text", text: "" },
      pieces(reply.text).map((piece) => ({ type: "text_delta", text: piece })),
    );
  }
  for (const call of reply.toolCalls ?? []) {
    block(
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      pieces(call.arguments).map((piece) => ({ type: "input_json_delta", partial_json: piece })),
    );
  }
  emit("message_delta", {
    delta: { stop_reason: anthropicStopReasons[finishOf(reply)], stop_sequence: null },
    usage: {
      output_tokens: usage.output,
      ...(usage.reasoning === undefined
        ? {}
        : { output_tokens_details: { thinking_tokens: usage.reasoning } }),
    },
  });
  emit("message_stop");
  return events;
}

function anthropicMessage(context: RenderContext, usage: Usage): JsonObject {
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  return {
    id: `msg_${context.sequence}`,
    type: "message",
    role: "assistant",
    content: [],
    model: context.model,
    stop_reason: null,
    stop_sequence: null,
    usage: {
      // Anthropic counts cache reads and writes apart from input_tokens
      input_tokens: usage.input - cacheRead - cacheWrite,
      cache_creation_input_tokens: cacheWrite,
      cache_read_input_tokens: cacheRead,
      output_tokens: 1,
    },
  };
}
