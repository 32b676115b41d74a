import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type {
  ErrorReply,
  FakeModelServer,
  FakeModelServerOptions,
  RawPiece,
  RecordedRequest,
  Reply,
  SemanticReply,
  SseEvent,
  Wire,
} from "./fake-model-types.js";
import { isJsonObject, type JsonValue, stringField } from "./json.js";
import { joined, renderChatCompletion, renderReply } from "./render-reply.js";
import { wholeReply } from "./render-whole-reply.js";
import { failure, validateRequest } from "./validate-history.js";

export type {
  ErrorReply,
  FakeModelServer,
  FakeModelServerOptions,
  Finish,
  RawPiece,
  RawReply,
  RecordedRequest,
  Reply,
  ScriptedToolCall,
  SemanticReply,
  Usage,
  Wire,
} from "./fake-model-types.js";

const sseHeaders = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

const wiresByPathEnding: Array<[string, Wire]> = [
  ["/chat/completions", "openai-chat"],
  ["/responses", "openai-responses"],
  ["/messages", "anthropic"],
];

/**
 * A real HTTP server on 127.0.0.1 that speaks the three streaming model wires. It answers each
 * request with the next scripted reply (or the responder's choice), after rejecting histories a
 * real provider would reject, and records every request for the test to inspect.
 */
export async function startFakeModelServer(
  options: FakeModelServerOptions = {},
): Promise<FakeModelServer> {
  const server = new ScriptedModelServer(options);
  await server.listen();
  return server;
}

class ScriptedModelServer implements FakeModelServer {
  url = "";
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Reply[] = [];
  private readonly sockets = new Set<Socket>();
  /** reasoning streamed with each tool call id, for the deepseek profile's passback check */
  private readonly streamedReasoning = new Map<string, string>();
  private readonly server: Server;
  private responder: ((request: RecordedRequest) => Reply) | undefined;
  private replySequence = 0;
  private closing = false;

  constructor(private readonly options: FakeModelServerOptions) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  // Arrow properties, so that tests may pass `server.enqueue` around unbound.
  enqueue = (...replies: Reply[]): void => {
    this.queue.push(...replies);
  };

  setResponder = (responder: ((request: RecordedRequest) => Reply) | undefined): void => {
    this.responder = responder;
  };

  close = async (): Promise<void> => {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // held streams never end by themselves; destroying their sockets lets close() finish
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await closed;
  };

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    const wire = wiresByPathEnding.find(([ending]) => path.endsWith(ending))?.[1];
    const text = await readBody(request);
    if (wire === undefined || request.method !== "POST") {
      sendJson(response, 404, {
        error: { message: `fake model server: no wire at ${request.method} ${path}` },
      });
      return;
    }
    const body = parseJson(text);
    const record: RecordedRequest = {
      wire,
      path,
      target: request.url ?? "/",
      headers: { ...request.headers },
      body: body ?? text,
      receivedAt: Date.now(),
      clientClosed: false,
      status: 200,
    };
    this.requests.push(record);
    response.on("close", () => {
      if (!response.writableFinished && !this.closing) {
        record.clientClosed = true;
      }
    });
    const rejection =
      body === undefined
        ? failure(wire, "fake model server: the request body is not JSON")
        : validateRequest(wire, body, {
            ...this.options,
            streamedReasoning: this.streamedReasoning,
          });
    if (rejection !== undefined) {
      record.status = rejection.status;
      record.validationError = rejection.message;
      sendJson(response, rejection.status, rejection.body);
      return;
    }
    await this.answer(record, response);
  }

  private nextReply(record: RecordedRequest): Reply | undefined {
    if (this.responder === undefined) {
      return this.queue.shift();
    }
    try {
      return this.responder(record);
    } catch (error) {
      // a failing responder must fail the test's request visibly, not hang or reset the connection
      const message = error instanceof Error ? error.message : String(error);
      return {
        status: 500,
        body: { error: { message: `fake model server: responder threw: ${message}` } },
      };
    }
  }

  private async answer(record: RecordedRequest, response: ServerResponse): Promise<void> {
    const reply = this.nextReply(record);
    if (reply === undefined) {
      record.status = 500;
      sendJson(response, 500, { error: { message: "fake model server: no scripted reply left" } });
      return;
    }
    if ("raw" in reply) {
      await play(response, reply.raw);
      return;
    }
    if ("reset" in reply) {
      record.status = 0;
      if (reply.by === "close") {
        response.socket?.destroy();
      } else {
        response.socket?.resetAndDestroy();
      }
      return;
    }
    if ("status" in reply) {
      record.status = reply.status;
      sendError(response, reply);
      return;
    }
    this.replySequence += 1;
    for (const call of reply.toolCalls ?? []) {
      this.streamedReasoning.set(call.id, joined(reply.reasoning));
    }
    const model = isJsonObject(record.body) ? stringField(record.body, "model") : undefined;
    const context = {
      sequence: this.replySequence,
      model: model ?? "fake-model",
      createdAt: Math.floor(Date.now() / 1000),
    };
    const events = renderReply(record.wire, reply, context);
    if (isJsonObject(record.body) && record.body.stream !== true) {
      // No `stream: true`: a non-streaming body, as real servers answer (after `delayMs`, and
      // after `pause.until` whatever `afterEvents` says); `breakAfterEvents` cuts it in half.
      if (reply.pause !== undefined) {
        await Promise.race([reply.pause.until, untilClosed(response)]);
      }
      await sleepUnlessClosed(response, reply.delayMs ?? 0);
      if (response.destroyed) {
        return;
      }
      const body =
        record.wire === "openai-chat"
          ? renderChatCompletion(reply, context)
          : wholeReply(record.wire, events);
      if (reply.breakAfterEvents === undefined) {
        sendJson(response, 200, body);
      } else {
        const text = JSON.stringify(body);
        response.writeHead(200, { "content-type": "application/json" });
        response.end(text.slice(0, Math.floor(text.length / 2)));
      }
      return;
    }
    await play(response, eventPieces(events, reply, this.options.splitBytes));
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, reply: ErrorReply): void {
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  const contentType = parseJson(text) === undefined ? "text/plain" : "application/json";
  response.writeHead(reply.status, { "content-type": contentType, ...reply.headers });
  response.end(text);
}

function frame(event: SseEvent): string {
  const name = event.event === undefined ? "" : `event: ${event.event}\n`;
  return `${name}data: ${event.data}\n\n`;
}

/** The reply as the byte pieces and pauses to play, so semantic and raw replies share one writer. */
function eventPieces(
  events: SseEvent[],
  reply: SemanticReply,
  splitBytes: number | undefined,
): RawPiece[] {
  const stallAt = reply.stallAfterEvents ?? Number.POSITIVE_INFINITY;
  const played: RawPiece[] = [];
  const sent = events.slice(0, Math.min(stallAt, reply.breakAfterEvents ?? stallAt));
  for (const [index, event] of sent.entries()) {
    if (reply.pause !== undefined && index === reply.pause.afterEvents) {
      played.push({ until: reply.pause.until });
    }
    const bytes = Buffer.from(frame(event), "utf8");
    const step = splitBytes !== undefined && splitBytes > 0 ? splitBytes : bytes.length;
    for (let start = 0; start < bytes.length; start += step) {
      played.push(bytes.subarray(start, start + step));
    }
    if ((reply.delayMs ?? 0) > 0) {
      played.push({ holdMs: reply.delayMs ?? 0 });
    }
  }
  if (reply.breakAfterEvents !== undefined && reply.breakBy === "reset") {
    played.push({ reset: true });
  } else if (reply.stallAfterEvents !== undefined && reply.breakAfterEvents === undefined) {
    played.push({ hold: true });
  }
  return played;
}

async function play(response: ServerResponse, played: RawPiece[]): Promise<void> {
  response.writeHead(200, sseHeaders);
  response.flushHeaders();
  for (const piece of played) {
    if (response.destroyed) {
      return;
    }
    if (typeof piece === "string" || Buffer.isBuffer(piece)) {
      await writeFlushed(response, piece);
    } else if ("holdMs" in piece) {
      await sleepUnlessClosed(response, piece.holdMs);
    } else if ("reset" in piece) {
      response.socket?.resetAndDestroy();
      return;
    } else if ("until" in piece) {
      await Promise.race([piece.until, untilClosed(response)]);
    } else {
      await untilClosed(response);
      return;
    }
  }
  if (!response.destroyed) {
    response.end();
  }
}

/**
 * Writes one piece and yields to the event loop, so that the client reads it as its own chunk
 * (the point of split-byte tests) instead of finding several writes coalesced in its buffer.
 */
async function writeFlushed(response: ServerResponse, piece: string | Buffer): Promise<void> {
  if (response.destroyed) {
    return;
  }
  await new Promise<void>((resolve) => {
    response.write(piece, () => resolve());
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
}

function untilClosed(response: ServerResponse): Promise<void> {
  if (response.destroyed) {
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => response.once("close", () => resolve()));
}

function sleepUnlessClosed(response: ServerResponse, milliseconds: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      response.off("close", finish);
      resolve();
    };
    const timer = setTimeout(finish, milliseconds);
    response.once("close", finish);
  });
}

/**
 * The `messages` of request `index` on the OpenAI Chat wire, of `source` (a server, or a harness
 * holding one).
 * @throws when there is no such request or it has no messages.
 */
export function chatMessages(
  source: FakeModelServer | { server: FakeModelServer },
  index: number,
): Array<Record<string, unknown>> {
  const server = "requests" in source ? source : source.server;
  const body = server.requests.at(index)?.body;
  if (
    typeof body !== "object" ||
    body === null ||
    !("messages" in body) ||
    !Array.isArray(body.messages)
  ) {
    throw new Error(`request ${index} has no messages`);
  }
  return body.messages as Array<Record<string, unknown>>;
}

/**
 * The roles of the messages sent for a new prompt after one tool turn (the call, its result):
 * the system prompt, the first prompt, the call, its result, the new prompt.
 */
export const ROLES_AFTER_ONE_TOOL_TURN = ["system", "user", "assistant", "tool", "user"] as const;
