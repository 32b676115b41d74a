/**
 * A `fetch` for OpenAI Chat Completions streams that evens out what OpenAI-compatible servers
 * (Ollama, vLLM, llama.cpp, gateways, Azure) send differently, before the AI SDK parses it:
 * chunks without `choices`, or with `choices: null` (keep-alives, usage-only chunks; case 15),
 * get `choices: []`, which the SDK's chunk schema requires; without it the whole reply fails.
 * Everything else passes through untouched.
 */
export const openAiChatQuirksFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const contentType = response.headers.get("content-type") ?? "";
  if (!response.ok || response.body === null || !contentType.includes("text/event-stream")) {
    return response;
  }
  const body = response.body.pipeThrough(sseEventTransform(createChunkNormaliser()));
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/**
 * Splits the byte stream into SSE events (blank-line separated) and maps each `data:` payload.
 * One stage that decodes and encodes itself: three chained streams cost a third of the relay's
 * throughput (bench/RESULTS.md).
 */
function sseEventTransform(
  mapData: (data: string) => string,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  const mapEvent = (event: string): string =>
    event
      .split("\n")
      .map((line) => (line.startsWith("data:") ? `data: ${mapData(line.slice(5).trim())}` : line))
      .join("\n");
  return new TransformStream({
    transform(bytes, controller) {
      const text = decoder.decode(bytes, { stream: true });
      buffer += text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
      let output = "";
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        output += `${mapEvent(buffer.slice(0, boundary))}\n\n`;
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf("\n\n");
      }
      if (output !== "") {
        controller.enqueue(encoder.encode(output));
      }
    },
    flush(controller) {
      buffer += decoder.decode();
      if (buffer !== "") {
        controller.enqueue(encoder.encode(mapEvent(buffer)));
      }
    },
  });
}

/**
 * Returns a mapper of chunk JSON text. Only chunks that lack a `choices` array are parsed and
 * rewritten; the AI SDK already keeps parallel tool calls apart when servers reuse `index: 0`
 * (case 09, covered by tests), so that needs nothing here.
 */
function createChunkNormaliser(): (data: string) => string {
  return (data) => {
    if (data === "[DONE]" || data.includes('"choices":[')) {
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
    if (Array.isArray(record.choices) || record.error !== undefined) {
      return data;
    }
    return JSON.stringify({ ...record, choices: [] });
  };
}
