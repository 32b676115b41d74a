/**
 * A model's base URL with a query string (`https://host/openai/deployments/d?api-version=2024-10-01`,
 * as Azure OpenAI takes its API version). The AI SDK's providers append the wire's path to the
 * base URL as text (`${baseURL}${path}`: `@ai-sdk/openai`, `@ai-sdk/openai-compatible`;
 * `${baseURL}/messages`: `@ai-sdk/anthropic`), which put the path inside the query
 * (`?api-version=2024-10-01/chat/completions`). Here the base is given to them without its query,
 * and the query is put back after the path of every request they make, as written (not
 * re-encoded). A fragment (`#…`) is never sent, so it is dropped.
 */

/** `url` split before its query: `http://h/v1?a=1#f` → `{path: "http://h/v1", query: "a=1"}`. */
function splitBaseUrl(url: string): { path: string; query: string | undefined } {
  const unfragmented = url.split("#", 1)[0] ?? "";
  const mark = unfragmented.indexOf("?");
  if (mark === -1) {
    return { path: unfragmented, query: undefined };
  }
  const query = unfragmented.slice(mark + 1);
  return { path: unfragmented.slice(0, mark), query: query === "" ? undefined : query };
}

/**
 * `url` with the part before its query (scheme, host and path) changed by `change`, the query kept
 * after it: `withPathPart("http://h/v1/?a=1", trimSlashes)` is `http://h/v1?a=1`.
 */
export function withPathPart(url: string, change: (path: string) => string): string {
  const { path, query } = splitBaseUrl(url);
  return query === undefined ? change(path) : `${change(path)}?${query}`;
}

/** A base URL without the slashes its path ends in (the AI SDK adds `/chat/completions` …). */
export function withoutTrailingSlashes(url: string): string {
  return withPathPart(url, (path) => path.replace(/\/+$/, ""));
}

/**
 * The options an AI SDK provider is created with to reach `baseUrl` with `apiKey` and `headers`:
 * `baseURL`, the base without its query, and `fetch`, `fetchFunction` with the base's query put
 * after each request's path (after the request's own query, joined by `&`, when it has one).
 */
export function endpointOptions(
  {
    baseUrl,
    apiKey,
    headers,
  }: { baseUrl?: string; apiKey?: string; headers?: Record<string, string> },
  fetchFunction: typeof fetch,
): { baseURL?: string; apiKey?: string; headers?: Record<string, string>; fetch: typeof fetch } {
  const { path, query } = splitBaseUrl(baseUrl ?? "");
  return {
    ...(baseUrl === undefined ? {} : { baseURL: path }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(headers === undefined ? {} : { headers }),
    fetch: query === undefined ? fetchFunction : withQuery(query, fetchFunction),
  };
}

/** `fetchFunction` with `query` added to the URL of every request (a URL string or `URL`). */
function withQuery(query: string, fetchFunction: typeof fetch): typeof fetch {
  return (input, init) => {
    if (typeof input !== "string" && !(input instanceof URL)) {
      return fetchFunction(input, init);
    }
    const url = typeof input === "string" ? input : input.href;
    const [before = "", fragment] = url.split("#", 2);
    const joined = `${before}${before.includes("?") ? "&" : "?"}${query}`;
    return fetchFunction(fragment === undefined ? joined : `${joined}#${fragment}`, init);
  };
}

/**
 * The endpoint a model's replies come from, as `<wire> <base URL>`: the wire and the base URL
 * without its user name, password, query and fragment (`openai https://h/v1`), or the vendor's
 * own (`anthropic default`). Recorded with the reasoning a reply carries for that endpoint alone
 * (an encrypted or signed block, convert.ts), so it holds no secret the base URL may carry.
 */
export function endpointName(wire: string, baseUrl: string | undefined): string {
  if (baseUrl === undefined) {
    return `${wire} default`;
  }
  const path = splitBaseUrl(baseUrl).path;
  const parsed = URL.canParse(path) ? new URL(path) : undefined;
  return `${wire} ${parsed === undefined ? path : `${parsed.origin}${parsed.pathname}`}`;
}

/**
 * The API key's source (`apiKeySource`, a variable's name) when `wire`'s requests carry the key,
 * which a refusal names; `undefined` on the OpenAI wires when the base URL holds a user name or
 * password: http-fetch.ts sends them as HTTP Basic in place of the key's Bearer (Anthropic's key
 * goes in `x-api-key` beside it).
 */
export function sentKeyFrom(
  wire: string,
  model: { baseUrl?: string | undefined; apiKeySource?: string | undefined },
): string | undefined {
  if (wire === "anthropic" || model.baseUrl === undefined) {
    return model.apiKeySource;
  }
  const path = splitBaseUrl(model.baseUrl).path;
  const parsed = URL.canParse(path) ? new URL(path) : undefined;
  const basic = parsed !== undefined && (parsed.username !== "" || parsed.password !== "");
  return basic ? undefined : model.apiKeySource;
}
