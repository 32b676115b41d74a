/**
 * A `fetch` for OpenAI Chat Completions streams that evens out what OpenAI-compatible servers
 * (Ollama, vLLM, llama.cpp, gateways) send differently, before the AI SDK parses it:
 *
 * - chunks without `choices`, or with `choices: null` (keep-alives, usage-only chunks; case 15)
 *   get `choices: []`, which the SDK's schema requires;
 * - parallel tool calls that all claim `index: 0`, or carry no index (case 09), get distinct
 *   indexes: a new `id` at an occupied index starts a new call; a delta with neither index nor id
 *   continues the most recent call.
 *
 * Everything else passes through untouched, byte for byte where no rewrite is needed.
 */
export const openAiChatQuirksFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const contentType = response.headers.get("content-type") ?? "";
  if (!response.ok || response.body === null || !contentType.includes("text/event-stream")) {
    return response;
  }
  const body = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(sseEventTransform(createChunkNormaliser()))
    .pipeThrough(new TextEncoderStream());
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/** Splits text into SSE events (blank-line separated) and maps each `data:` payload. */
function sseEventTransform(mapData: (data: string) => string): TransformStream<string, string> {
  let buffer = "";
  const mapEvent = (event: string): string =>
    event
      .split("\n")
      .map((line) => (line.startsWith("data:") ? `data: ${mapData(line.slice(5).trim())}` : line))
      .join("\n");
  return new TransformStream({
    transform(text, controller) {
      buffer += text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        controller.enqueue(`${mapEvent(buffer.slice(0, boundary))}\n\n`);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf("\n\n");
      }
    },
    flush(controller) {
      if (buffer !== "") {
        controller.enqueue(mapEvent(buffer));
      }
    },
  });
}

interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  [key: string]: unknown;
}

/** Returns a mapper of chunk JSON text that keeps tool-call indexes apart across one stream. */
function createChunkNormaliser(): (data: string) => string {
  const indexById = new Map<string, number>();
  /** The call that a delta with a given raw index continues. */
  const indexByRawIndex = new Map<number, number>();
  let mostRecentIndex: number | undefined;
  let nextIndex = 0;

  const assignIndex = (delta: ToolCallDelta): number => {
    const rawIndex = typeof delta.index === "number" ? delta.index : undefined;
    const id = typeof delta.id === "string" && delta.id !== "" ? delta.id : undefined;
    const known = id === undefined ? undefined : indexById.get(id);
    if (known !== undefined) {
      return known;
    }
    if (id === undefined) {
      const continued =
        rawIndex === undefined ? mostRecentIndex : (indexByRawIndex.get(rawIndex) ?? undefined);
      if (continued !== undefined) {
        return continued;
      }
    }
    const index = nextIndex++;
    if (id !== undefined) {
      indexById.set(id, index);
    }
    if (rawIndex !== undefined) {
      indexByRawIndex.set(rawIndex, index);
    }
    return index;
  };

  return (data) => {
    if (data === "[DONE]" || (data.includes('"choices":[') && !data.includes('"tool_calls"'))) {
      return data;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) {
      return data;
    }
    const record = chunk as { choices?: unknown; error?: unknown };
    if (!Array.isArray(record.choices)) {
      if (record.error !== undefined) {
        return data;
      }
      record.choices = [];
    }
    for (const choice of record.choices as Array<{ delta?: { tool_calls?: ToolCallDelta[] } }>) {
      for (const delta of choice?.delta?.tool_calls ?? []) {
        const index = assignIndex(delta);
        delta.index = index;
        mostRecentIndex = index;
      }
    }
    return JSON.stringify(record);
  };
}
