import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { httpFetch } from "../../src/llm/http-fetch.js";

// Issue 26, figure 4c: a body whose last piece and end come in one socket read. The end closes
// the body's stream one turn of the event loop later, so the last piece travels the whole chain of
// stream stages to the reader first: closing at once let the AI SDK's response wrapper see the end
// and release its reader (on Node 20 a first release builds an error in a new `vm` context) before
// the last delta reached the session. Two turns later: what the reader queues with `setImmediate`
// on seeing the last piece (the ACP face sends a waiting text chunk so) runs before the end too
// (figure 4e).

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

test("the last piece of a body reaches a reader four stages away, and the reader's next turn comes, before the body's stream closes", async () => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end("data: last\n\n");
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const response = await httpFetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const body = response.body;
  if (body === null) {
    throw new Error("no body");
  }
  const seen: string[] = [];
  // As the AI SDK's response wrapper does: read the body, note its end.
  const reader = body.getReader();
  const wrapped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        seen.push("body closed");
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
  });
  // Then stages as the SSE parsing has them, and the reader at the end.
  const passThrough = () => new TransformStream<Uint8Array, Uint8Array>();
  const staged = wrapped
    .pipeThrough(passThrough())
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new TransformStream<string, string>())
    .pipeThrough(new TransformStream<string, string>());
  for await (const text of staged) {
    seen.push(`read ${JSON.stringify(text)}`);
    setImmediate(() => seen.push("the reader's next turn"));
  }
  expect(seen).toEqual(['read "data: last\\n\\n"', "the reader's next turn", "body closed"]);
});
