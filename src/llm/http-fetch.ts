import type { ClientRequest, IncomingMessage } from "node:http";
import type { RequestOptions } from "node:https";
import { WebPageAnswerError } from "./errors.js";
import { preparationsWaiting, runPreparations } from "./first-response.js";
import { type HeaderInit, HeaderList, unsendableHeaderCharacter } from "./http-headers.js";
import {
  type BodyMap,
  bodyStream,
  decoded,
  HttpResponse,
  responseHeaders,
} from "./http-response.js";
import {
  BodyPieces,
  bodyOf,
  type RequestBody,
  sendingBodyPieces,
  writeBody,
} from "./request-body.js";

/**
 * A `fetch` for model requests over `node:http`/`node:https` (issue 26): Node's global `fetch`
 * loads undici and compiles its WebAssembly HTTP parser, about 14 MiB of resident memory in a
 * bare process against about 2 MiB for the same request through `node:http` (figures in
 * bench/notes/targets.md). It does what the AI SDK and turnloop's wrappers ask of `fetch`, the
 * way undici does it:
 * - input: a URL string or `URL` (a `Request` object is refused: nothing here builds one);
 * - `method`, `headers` (record, pairs or a headers object), `signal`, `redirect`;
 * - body: a string, bytes (`Uint8Array`, `ArrayBuffer`), a {@link BodyPieces} (its pieces one after
 *   another, with their total length) or a web `ReadableStream` of bytes (sent as it is read, with
 *   backpressure; `Content-Length` is sent when the caller set it, else the body is chunked);
 * - `accept-encoding: gzip, deflate, br` unless set, and such bodies decoded, as undici does;
 * - redirects (Fetch standard, HTTP-redirect fetch): `follow` (at most 20; 303, and 301/302 after
 *   a POST, become a GET without body; 307/308 send the body again, which a stream body cannot:
 *   that fails), `manual` (the 3xx response is returned), `error` (fails);
 * - failures shaped like undici's, which src/llm/errors.ts and the AI SDK classify: before the
 *   response, `TypeError("fetch failed")` whose `cause` is the socket's error (`ECONNREFUSED`,
 *   `ECONNRESET`, `ETIMEDOUT` …); a body that breaks off errors the body stream with
 *   `TypeError("terminated")` and its cause; an aborted `signal` rejects (or errors the body) with
 *   the signal's reason, an `AbortError` `DOMException` by default;
 * - no proxy: Node 20's global `fetch` reads no proxy variables either.
 * A connection silent for {@link IDLE_TIMEOUT_MS} (undici's header and body timeouts) fails with
 * `ETIMEDOUT`: before the response as above, during the body with `TypeError("terminated")`
 * whose cause says `no data from the server for 300 s`. The time runs from the moment the agent
 * hands the request a socket, connecting or not, and restarts on every byte either way (Node's
 * socket timeout), so it never fires sooner than it says. Connections are kept alive by Node's
 * global agents. {@link createHttpFetch} makes one with other options.
 */
export const httpFetch: typeof fetch = sendingBodyPieces((input, init) =>
  httpExchange(input, init).then((response) => response.asResponse()),
);

/** Options of {@link createHttpFetch} and {@link httpExchange}. */
export interface HttpFetchOptions {
  /**
   * Milliseconds without a byte from the server, before or during the response, after which a
   * request fails with `ETIMEDOUT`; default {@link IDLE_TIMEOUT_MS}. A positive number.
   */
  idleTimeoutMs?: number;
  /**
   * PEM certificates of the authorities trusted for `https:` in place of Node's (its bundled
   * roots plus `NODE_EXTRA_CA_CERTS`): for a server whose certificate no public authority signed.
   */
  certificateAuthorities?: string | string[];
  /** A rewriting of the body as it arrives, chosen by the response's status and headers, or none. */
  bodyMap?: (status: number, headers: HeaderList) => BodyMap | undefined;
}

/**
 * A {@link httpFetch} with other options.
 * @throws RangeError when `idleTimeoutMs` is not a positive number.
 */
export function createHttpFetch(options: HttpFetchOptions): typeof fetch {
  if (
    options.idleTimeoutMs !== undefined &&
    !(Number.isFinite(options.idleTimeoutMs) && options.idleTimeoutMs > 0)
  ) {
    throw new RangeError(`idleTimeoutMs must be a positive number, not ${options.idleTimeoutMs}`);
  }
  return sendingBodyPieces((input, init) =>
    httpExchange(input, init, options).then((response) => response.asResponse()),
  );
}

/** {@link httpFetch}'s answer as the {@link HttpResponse} it is. Rejects as {@link httpFetch}. */
export async function httpExchange(
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
  options: HttpFetchOptions = {},
): Promise<HttpResponse> {
  const request = requestOf(input, init, options);
  const response = await sendFollowingRedirects(request, 0);
  const contentType = response.headers.get("content-type") ?? "";
  if (response.ok && /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(contentType)) {
    await response.body?.cancel();
    throw new WebPageAnswerError(response.url, contentType, request.url.pathname);
  }
  return response;
}

/** Milliseconds without a byte from the server before a request fails (undici's 300 s). */
export const IDLE_TIMEOUT_MS = 300_000;

/** The most redirects followed for one request (the Fetch standard's 20). */
const MAX_REDIRECTS = 20;

/** A request as this module sends it. */
export interface HttpRequest {
  url: URL;
  method: string;
  headers: HeaderList;
  /** Bytes or pieces of bytes that can be sent again, or a stream that cannot, or nothing. */
  body: RequestBody;
  redirect: NonNullable<RequestInit["redirect"]>;
  signal: AbortSignal | undefined;
  redirected: boolean;
  idleTimeoutMs: number;
  /** PEM certificate authorities trusted in place of Node's, or undefined for Node's. */
  certificateAuthorities: string | string[] | undefined;
  bodyMap: HttpFetchOptions["bodyMap"];
}

function requestOf(
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
  options: HttpFetchOptions,
): HttpRequest {
  if (typeof input !== "string" && !(input instanceof URL)) {
    throw new TypeError("httpFetch takes a URL string or a URL, not a Request");
  }
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("fetch failed", { cause: new Error(`unknown scheme ${url.protocol}`) });
  }
  if (BAD_PORTS.has(url.port)) {
    throw new TypeError("fetch failed", { cause: new Error("bad port") });
  }
  const headers = new HeaderList(init?.headers as HeaderInit | undefined);
  for (const [name, value] of headers) {
    checkHeaderValue(name, value);
  }
  if (url.username !== "" || url.password !== "") {
    // One rule on every wire (README): the URL's user:password is HTTP Basic, in place of a key's
    // Bearer on the OpenAI wires (Node's `auth` would give way to it and drop them unsaid).
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.set("authorization", `Basic ${Buffer.from(user).toString("base64")}`);
  }
  return {
    url,
    method: (init?.method ?? "GET").toUpperCase(),
    headers,
    body: bodyOf(init?.body),
    redirect: init?.redirect ?? "follow",
    signal: init?.signal ?? undefined,
    redirected: false,
    idleTimeoutMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    certificateAuthorities: options.certificateAuthorities,
    bodyMap: options.bodyMap,
  };
}

/**
 * Ports the Fetch standard blocks ("bad port", the list undici keeps): a request to one fails as
 * Node's `fetch` fails it, `TypeError("fetch failed")` caused by `Error("bad port")`.
 */
const BAD_PORTS = new Set(
  (
    "1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 " +
    "113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 " +
    "548 554 556 563 587 601 636 989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 " +
    "6000 6566 6665 6666 6667 6668 6669 6679 6697 10080"
  ).split(" "),
);

/**
 * Refuses a header value HTTP cannot carry, with the messages of Node's `fetch` (undici's WebIDL
 * and `Headers`), which src/llm/errors.ts recognises: a character above U+00FF (the `…` of a
 * copied placeholder key), or a control character. The value itself is never in the message.
 * @throws TypeError
 */
function checkHeaderValue(name: string, value: string): void {
  const found = unsendableHeaderCharacter(value);
  if (found === undefined) {
    return;
  }
  if (found.code > 0xff) {
    throw new TypeError(
      `Cannot convert argument to a ByteString because the character at index ${found.index} has a value of ${found.code} which is greater than 255.`,
    );
  }
  throw new TypeError(`Headers.append: ${name} has an invalid header value.`);
}

async function sendFollowingRedirects(
  request: HttpRequest,
  redirects: number,
): Promise<HttpResponse> {
  const response = await send(request);
  const location = response.headers.get("location");
  if (![301, 302, 303, 307, 308].includes(response.status) || location === null) {
    return response;
  }
  if (request.redirect === "manual") {
    return response;
  }
  await response.body?.cancel();
  if (request.redirect === "error") {
    throw new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
  }
  if (redirects >= MAX_REDIRECTS) {
    throw new TypeError("fetch failed", { cause: new Error("redirect count exceeded") });
  }
  return sendFollowingRedirects(
    redirectedRequest(request, response.status, location),
    redirects + 1,
  );
}

/** The request the Fetch standard's HTTP-redirect fetch makes next. */
function redirectedRequest(request: HttpRequest, status: number, location: string): HttpRequest {
  const url = new URL(location, request.url);
  const headers = new HeaderList(request.headers);
  let { method, body } = request;
  if (
    status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST"
  ) {
    method = "GET";
    body = undefined;
    for (const name of [
      "content-type",
      "content-length",
      "content-encoding",
      "content-language",
      "content-location",
    ]) {
      headers.delete(name);
    }
  } else if (body instanceof ReadableStream) {
    throw new TypeError("fetch failed", {
      cause: new Error("a redirect cannot send a stream body again"),
    });
  }
  if (url.origin !== request.url.origin) {
    for (const name of ["authorization", "cookie", "proxy-authorization"]) {
      headers.delete(name);
    }
  }
  return { ...request, url, method, headers, body, redirected: true };
}

/** One HTTP exchange: resolves with the response once its head arrives. */
export function send(request: HttpRequest): Promise<HttpResponse> {
  const { signal } = request;
  if (signal?.aborted === true) {
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    let outgoing: ClientRequest;
    try {
      outgoing = startRequest(request);
    } catch (error) {
      // node:http refuses what it cannot send (a header name that is no token …) at once.
      reject(new TypeError("fetch failed", { cause: error }));
      return;
    }
    let answered: IncomingMessage | undefined;
    const onAbort = () => {
      // A body being read fails with the reason itself, as undici's does.
      (answered ?? outgoing).destroy(signal?.reason as Error);
      if (answered === undefined) {
        reject(signal?.reason);
      }
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    outgoing.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (answered === undefined && signal?.aborted !== true) {
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    // The socket's time is set by startRequest: `outgoing.setTimeout` would set it only once
    // the socket connects, and until then the global agent's 5 s fired this as 300 s.
    outgoing.once("timeout", () => {
      const seconds = request.idleTimeoutMs / 1000;
      const error = new Error(`no data from the server for ${seconds} s`);
      // During the body the response carries it, so the reader's cause is this, not "aborted".
      (answered ?? outgoing).destroy(Object.assign(error, { code: "ETIMEDOUT" }));
    });
    outgoing.on("response", (message) => {
      answered = message;
      message.once("close", () => signal?.removeEventListener("abort", onAbort));
      resolve(responseOf(request, message));
    });
    if (preparationsWaiting()) {
      // Handed to the OS: the wait for the answer can hold the first turn's one-time work.
      outgoing.once("finish", runPreparations);
    }
    writeBody(outgoing, request.body);
  });
}

function startRequest(request: HttpRequest): ClientRequest {
  const { url, method, headers, body } = request;
  if (!headers.has("accept-encoding")) {
    headers.set("accept-encoding", "gzip, deflate, br");
  }
  if (body instanceof Uint8Array || body instanceof BodyPieces) {
    headers.set("content-length", String(body.byteLength));
  } else if (body === undefined && (method === "POST" || method === "PUT")) {
    headers.set("content-length", "0");
  }
  const options: RequestOptions = {
    method,
    headers: headers.toRecord(),
    // Set on the socket as soon as the agent hands it over, connecting or not.
    timeout: request.idleTimeoutMs,
    ...(request.certificateAuthorities === undefined ? {} : { ca: request.certificateAuthorities }),
  };
  const module = process.getBuiltinModule(url.protocol === "https:" ? "node:https" : "node:http");
  return module.request(url, options);
}

function responseOf(request: HttpRequest, message: IncomingMessage): HttpResponse {
  const status = message.statusCode ?? 0;
  const headers = responseHeaders(message);
  const init = {
    status,
    statusText: message.statusMessage ?? "",
    headers,
    url: request.url.href,
    redirected: request.redirected,
  };
  const noBody = request.method === "HEAD" || [101, 204, 205, 304].includes(status);
  if (noBody) {
    message.resume();
    return new HttpResponse(null, init);
  }
  const body = decoded(message, headers.get("content-encoding"));
  const map = request.bodyMap?.(status, headers);
  return new HttpResponse(bodyStream(body, message, map, request.signal), init);
}
