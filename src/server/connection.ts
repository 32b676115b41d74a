/**
 * One client connection: JSON-RPC over a `Content-Length`-framed stream (vscode-jsonrpc), the
 * method table, and what happens when the client goes away (its sessions' prompts are cancelled
 * and the sessions closed, so their logs end consistently).
 *
 * Every request goes through one dispatcher: unknown methods get `-32601`, params that do not fit
 * get `-32602` with a readable message, anything unexpected `-32603`. A body that is not JSON
 * gets `-32700` with id null, an empty one (`Content-Length: 0`) or JSON that is no JSON-RPC
 * message (a batch, invalid-messages.ts) `-32600`, each named in one line on stderr. A framing fault (see `framing.ts`) is answered with id null
 * and closes the connection, after the requests read before it are answered; so does the end of
 * the input. None of them end the process.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import {
  CancellationTokenSource,
  createMessageConnection,
  type MessageConnection,
  type MessageReader,
  ResponseError,
  type ResponseMessage,
} from "vscode-jsonrpc/node.js";
import { ErrorCode, type SessionMode } from "../protocol/copilot.js";
import type { FramedMessageWriter } from "../protocol/framed-writer.js";
import type { SessionHost } from "../session/host.js";
import type { OpeningGate } from "../session/opening-gate.js";
import { storeFailure } from "../session/storage-error.js";
import { journalMark, sessionIdOf, toldSince } from "./answer-order.js";
import type { ClientLink } from "./client-link.js";
import type { FramingFault } from "./framing.js";
import { refusingInvalidMessages } from "./invalid-messages.js";
import { notificationFrame } from "./notification-text.js";
import type { RecentSessions } from "./recent-sessions.js";
import type { ServerSession } from "./server-session.js";
import { unsupportedMessage } from "./unsupported.js";

/** JSON-RPC 2.0's "invalid request" code. */
const INVALID_REQUEST = -32600;

/** What every connection of one server shares. */
export interface ServerContext {
  /** Sessions, models and the run config; `host.config.cwd` is new sessions' default cwd. */
  host: SessionHost;
  version: string;
  defaultMode: SessionMode;
  /**
   * The protocol state of each session served here, by id: one {@link ServerSession} per session
   * at most. The sessions themselves are the host's (`host.open` / `host.get`).
   */
  sessions: Map<string, ServerSession>;
  /**
   * Sessions an app detached (`session.detach`) here and nobody resumed since: as with Copilot,
   * they cannot be read ("Session not found") until resumed. The most recent ones only
   * (recent-sessions.ts).
   */
  detached: RecentSessions;
  /**
   * Sessions `session.delete` removed here, or a follower here found deleted, and nobody made
   * again since: a later method naming one says it was deleted, after Copilot's "Session not
   * found" (session-methods.ts `openSession`). The most recent ones only (recent-sessions.ts).
   */
  deleted: RecentSessions;
  /**
   * The `session.resume`s in progress: every other request naming their session (`sessionId`)
   * waits for its resume, then runs, or fails with the resume's error (opening-gate.ts).
   */
  openings: OpeningGate;
  connections: Set<ClientConnection>;
  /** Largest message a client may send, in bytes (`TURNLOOP_MAX_MESSAGE_BYTES`). */
  maxMessageBytes: number;
  /** Asks the server to stop (after `runtime.shutdown` has been answered). */
  requestShutdown(): void;
  log(message: string): void;
}

/** A method: gets the raw params, returns the result or throws a ResponseError. */
export type MethodHandler = (connection: ClientConnection, params: unknown) => unknown;

export class ClientConnection implements ClientLink {
  private readonly rpc: MessageConnection;
  private readonly writer: FramedMessageWriter;
  private authenticated: boolean;
  private isClosed = false;
  readonly closed: Promise<void>;
  private markClosed: () => void = () => undefined;
  /** Requests and notifications handed to the handlers so far, unreadable bodies included. */
  private messagesHandled = 0;
  /** Answers of requests still being worked on. */
  private readonly pending = new Set<Promise<unknown>>();

  /**
   * @param hangUp closes the transport (socket, stdio) when the connection ends.
   * @param requiredToken when set (TCP with a connection token), every method but `connect`
   * is refused until `connect {token}` carries it.
   */
  constructor(
    readonly server: ServerContext,
    reader: MessageReader,
    writer: FramedMessageWriter,
    private readonly methods: Readonly<Record<string, MethodHandler>>,
    private readonly hangUp: () => void,
    private readonly requiredToken?: string,
  ) {
    this.authenticated = requiredToken === undefined;
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    const logger = {
      error: (message: string) => server.log(message),
      warn: (message: string) => server.log(message),
      info: () => undefined,
      log: () => undefined,
    };
    this.writer = writer;
    reader.onError((error) => {
      this.messagesHandled++;
      server.log(`unreadable message skipped: ${error.message}`);
      // JSON-RPC 2.0 §5: a request that cannot be parsed is answered with id null.
      this.answerUnreadable(-32700, `Parse error: ${error.message}`);
    });
    const checked = refusingInvalidMessages(reader, (problem, id) => {
      this.messagesHandled++;
      server.log(`an invalid message answered as an invalid request: ${problem}`);
      this.answerUnreadable(INVALID_REQUEST, `Invalid request: ${problem}`, id);
    });
    this.rpc = createMessageConnection(checked, this.writer, logger);
    this.rpc.onRequest((method, params) => {
      this.messagesHandled++;
      const answer = this.dispatch(method, params);
      this.pending.add(answer);
      void answer.then(
        () => this.pending.delete(answer),
        () => this.pending.delete(answer),
      );
      return answer;
    });
    this.rpc.onNotification(() => {
      this.messagesHandled++;
    });
    this.rpc.onClose(() => void this.onClose());
  }

  /** Starts reading. */
  listen(): void {
    this.server.connections.add(this);
    this.rpc.listen();
  }

  /**
   * Sends a notification, in order with every answer and request sent before it. The message is
   * the one vscode-jsonrpc's `sendNotification(method, params)` builds for an object `params`
   * (`{jsonrpc: "2.0", method, params}`), as its framed JSON text (notification-text.ts), handed to the
   * same writer without the promises that path makes per message: one notification goes out per
   * streamed delta (issue 26, figure 4f). A closed output is reported through the writer's
   * `onError`; nothing waits for it here.
   */
  notify(method: string, params: object): void {
    if (!this.isClosed) {
      this.writer.sendFrame(notificationFrame(method, params));
    }
  }

  notifyFrame(frame: string): void {
    if (!this.isClosed) {
      this.writer.sendFrame(frame);
    }
  }

  request(
    method: string,
    params: object,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<unknown> {
    if (this.isClosed) {
      return Promise.reject(new Error("the connection is closed"));
    }
    const cancellation = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      const stop = (reason: string) => {
        cancellation.cancel();
        reject(new Error(reason));
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => stop(`no answer to ${method} within ${timeoutMs} ms`), timeoutMs);
      }
      onAbort = () => stop("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) {
        onAbort();
      }
    });
    // Pending requests are rejected by vscode-jsonrpc when the connection is disposed (onClose).
    return Promise.race([
      this.rpc.sendRequest(method, params, cancellation.token),
      stopped,
    ]).finally(() => {
      clearTimeout(timer);
      if (onAbort !== undefined) {
        signal?.removeEventListener("abort", onAbort);
      }
      cancellation.dispose();
    });
  }

  /** Marks the token check passed, or refuses. @throws ResponseError for a wrong token. */
  authenticate(token: string | undefined): void {
    if (this.requiredToken !== undefined && !sameToken(token, this.requiredToken)) {
      // Answer first, then hang up: the client learns why.
      setImmediate(() => void this.dispose());
      // The Copilot SDK's apps match the code name in the message.
      throw new ResponseError(
        ErrorCode.unauthorized,
        "AUTHENTICATION_FAILED: connect: wrong or missing connection token",
      );
    }
    this.authenticated = true;
  }

  /**
   * The byte stream cannot be read on (a framing fault): answers with id null, says why on
   * stderr, and closes, so the client learns it instead of waiting for answers forever.
   */
  async refuseStream(fault: FramingFault): Promise<void> {
    this.server.log(`closing the connection: ${fault.message}`);
    await this.answerFramesBefore(fault.framesBefore);
    this.answerUnreadable(fault.code, `${fault.message}; closing the connection`);
    await this.dispose();
  }

  /**
   * The input ended after `frames` frames: resolves once their requests are answered (unreadable
   * bodies included) and the answers handed to the output. The connection closes after, as when
   * the client goes away (its sessions' prompts are cancelled and the sessions closed).
   */
  async answerBeforeEnd(frames: number): Promise<void> {
    await this.answerFramesBefore(frames);
    await this.answersHandedOn();
  }

  /**
   * A frame with an empty body (`Content-Length: 0`): no message, but perfectly delimited, so it
   * is answered as an invalid request (JSON-RPC 2.0 §5: id null) and the connection goes on.
   */
  refuseEmptyMessage(): void {
    this.server.log("an empty message (Content-Length: 0) answered as an invalid request");
    this.answerUnreadable(INVALID_REQUEST, "Invalid request: an empty message (Content-Length: 0)");
  }

  /**
   * Waits until the first `frames` frames of the stream were handled and their requests answered.
   * vscode-jsonrpc reads frames as they arrive and handles one queued message per turn of the
   * event loop, so this takes at most about `frames` turns; frames that are answers to our own
   * requests are not counted by {@link messagesHandled}, hence the bound.
   */
  private async answerFramesBefore(frames: number): Promise<void> {
    for (let round = 0; round < frames + 10 && this.messagesHandled < frames; round++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.allSettled([...this.pending]);
  }

  private answerUnreadable(code: number, message: string, id: string | number | null = null): void {
    if (!this.isClosed) {
      const answer: ResponseMessage = { jsonrpc: "2.0", id, error: { code, message } };
      this.writer.write(answer).catch(() => undefined);
    }
  }

  /** Closes the connection and its transport, after what was already sent (answers) is out. */
  async dispose(): Promise<void> {
    await this.answersHandedOn();
    await this.onClose();
  }

  /**
   * Resolves once every message written so far was taken by the output, or after
   * {@link DRAIN_TIMEOUT_MS} for a peer that stopped reading.
   */
  private async answersHandedOn(): Promise<void> {
    // Answers whose handlers settle in this turn are handed to the writer after it: let them begin.
    await new Promise((resolve) => setImmediate(resolve));
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
    });
    await Promise.race([this.writer.flushed(), giveUp]);
    clearTimeout(timer);
  }

  private async dispatch(method: string, params: unknown): Promise<unknown> {
    const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    if (handler === undefined) {
      throw new ResponseError(ErrorCode.methodNotFound, unsupportedMessage(method));
    }
    if (!this.authenticated && method !== "connect") {
      throw new ResponseError(
        ErrorCode.unauthorized,
        "AUTHENTICATION_FAILED: send connect with the connection token (TURNLOOP_CONNECTION_TOKEN) first",
      );
    }
    const opening = this.opening(method, params);
    if (opening !== undefined) {
      await opening;
    }
    // The answer follows the events the request recorded (answer-order.ts); a send's names the
    // prompt, whose events follow as it runs, as Copilot's do.
    const sessionId = method === "session.send" ? undefined : sessionIdOf(params);
    try {
      const mark = journalMark(this.server.sessions, sessionId);
      const answer = await handler(this, params);
      await toldSince(this.server.sessions, sessionId, mark);
      return answer;
    } catch (error) {
      if (error instanceof ResponseError) {
        throw error;
      }
      // A store's refusal names its file or database (an ENOSPC names neither by itself).
      const message = storeFailure(error);
      this.server.log(`${method} failed: ${message}`);
      throw new ResponseError(ErrorCode.internalError, `${method} failed: ${message}`);
    }
  }

  /**
   * The resume of the session a request names, when one is in progress and the request is not
   * itself a resume (resumes of one session run in turn inside `session.resume`).
   */
  private opening(method: string, params: unknown): Promise<void> | undefined {
    const sessionId = sessionIdOf(params);
    return sessionId !== undefined && method !== "session.resume"
      ? this.server.openings.settled(sessionId)
      : undefined;
  }

  /** The client is gone: its sessions' prompts are cancelled and the sessions closed. */
  private async onClose(): Promise<void> {
    if (this.isClosed) {
      return;
    }
    this.isClosed = true;
    this.server.connections.delete(this);
    this.markClosed();
    // Rejects requests still waiting for this client (hooks), so nothing waits for a dead peer.
    this.rpc.dispose();
    this.hangUp();
    const owned = [...this.server.sessions.values()].filter((session) => session.serves(this));
    await Promise.all(owned.map((session) => session.connectionLost(this)));
  }
}

/** Compares in constant time, so the answer's timing tells nothing about the token. */
function sameToken(given: string | undefined, required: string): boolean {
  const expected = createHash("sha256").update(required).digest();
  const actual = createHash("sha256")
    .update(given ?? "")
    .digest();
  return given !== undefined && timingSafeEqual(actual, expected);
}

/** Sends `method` to every live connection (lifecycle notifications). */
export function broadcast(server: ServerContext, method: string, params: object): void {
  for (const connection of server.connections) {
    connection.notify(method, params);
  }
}

/** How long closing waits for the last answers to go out (ms). */
const DRAIN_TIMEOUT_MS = 1_000;
