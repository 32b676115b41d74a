import type { JsonValue } from "./json.js";

export type Wire = "openai-chat" | "openai-responses" | "anthropic";

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** argument text; an array = streamed in those pieces */
  arguments: string | string[];
}

/**
 * Token counts as the AI SDK reports them: `input` is the total input (cached tokens included,
 * the SDK's `inputTokens.total`), `output` the total output (reasoning included). Each wire gets
 * them in its own convention (Anthropic's `input_tokens` excludes cache reads and writes).
 */
export interface Usage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export type Finish = "stop" | "tool_calls" | "length" | "content_filter";

export interface SemanticReply {
  text?: string | string[];
  reasoning?: string | string[];
  reasoningSignature?: string;
  encryptedReasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** default: "tool_calls" when toolCalls present, else "stop". Rendered as the wire's own value */
  finish?: Finish;
  /** null = send no usage at all (Anthropic: zeros, its stream schema requires the fields); default {input: 10, output: 5} */
  usage?: Usage | null;
  /** write each SSE event then wait this many ms (default 0); a non-streaming reply waits once */
  delayMs?: number;
  /**
   * A gate: after sending `afterEvents` SSE events, send nothing more until `until` settles (or the
   * client closes the connection), then go on. Orders a test by what it saw, not by delays.
   * A non-streaming reply (no `stream: true`, as the SDK server asks) holds its whole body.
   */
  pause?: { afterEvents: number; until: Promise<unknown> };
  /** after sending `stallAfterEvents` SSE events, keep the connection open and send nothing */
  stallAfterEvents?: number;
  /** after sending `breakAfterEvents` SSE events, break the stream: see `breakBy` */
  breakAfterEvents?: number;
  /** "end" (default): a clean end of the body without the wire's terminator; "reset": a TCP reset */
  breakBy?: "end" | "reset";
  /**
   * OpenAI Chat only: split the reply across `choices[]` as the Copilot API does, the text in
   * choice 0 and each tool call in a choice of its own (1, 2 …), each with its own finish reason.
   */
  splitChoices?: boolean;
}

export type RawPiece =
  | string
  | Buffer
  | { holdMs: number }
  | { hold: true }
  | { reset: true }
  | { until: Promise<unknown> };

export interface RawReply {
  /**
   * Exact bytes: each string written as its own TCP write; {holdMs} pauses; {hold:true} never
   * finishes; {reset:true} resets the TCP connection (the client sees ECONNRESET); {until} waits
   * for the promise (a gate the test opens).
   */
  raw: RawPiece[];
}

export interface ErrorReply {
  status: number;
  headers?: Record<string, string>;
  body: string | object;
}

/**
 * No answer at all: once the request is read, the connection goes away before any byte of the
 * response, as a server or proxy that dies after taking the request does: `by` "reset" (default)
 * a real TCP reset (`socket.resetAndDestroy()`: the client reads ECONNRESET), "close" the socket
 * destroyed, a FIN (Node's client says "socket hang up"). For a reset during the answer, use a
 * {@link SemanticReply}'s `breakAfterEvents` with `breakBy: "reset"` (`breakAfterEvents: 0`: right
 * after the status line and headers).
 */
export interface ResetReply {
  reset: "before-answer";
  by?: "reset" | "close";
}

export type Reply = SemanticReply | RawReply | ErrorReply | ResetReply;

export interface RecordedRequest {
  wire: Wire;
  path: string;
  /** The request line's target as the client sent it: the path and any query (`/v1/x?a=1`). */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: JsonValue;
  /** Date.now() when the request body was complete */
  receivedAt: number;
  /** true if the client closed the connection before the reply finished */
  clientClosed: boolean;
  /** what the server answered: status code (0: the connection was reset before any answer) */
  status: number;
  validationError?: string;
}

export interface FakeModelServerOptions {
  /** split every SSE event's bytes into pieces of at most N bytes, each a separate write */
  splitBytes?: number;
  /** reject requests containing stream_options with 400 (case 15 test 5) */
  rejectStreamOptions?: boolean;
  /** deepseek profile: 400 unless each assistant message with tool_calls carries the reasoning_content streamed for it (case 22) */
  requireReasoningPassback?: boolean;
  /** Responses: 400 when a `store:false` request lacks `include:["reasoning.encrypted_content"]` (case 23) */
  requireEncryptedReasoningInclude?: boolean;
}

export interface FakeModelServer {
  /** "http://127.0.0.1:PORT" (no trailing slash, no /v1) */
  url: string;
  requests: RecordedRequest[];
  /** served in order, one per request, whatever the wire */
  enqueue(...replies: Reply[]): void;
  /** picks the reply per request; takes precedence over the queue when set */
  setResponder(responder: ((request: RecordedRequest) => Reply) | undefined): void;
  /** destroys open sockets too */
  close(): Promise<void>;
}

/** One SSE event before framing: `event` is omitted on the OpenAI Chat wire. */
export interface SseEvent {
  event?: string;
  data: string;
}
