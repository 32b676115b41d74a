import { expect, test } from "vitest";
import { HeaderList } from "../../src/llm/http-headers.js";
import { bytesAllocatedIn } from "../support/heap-sampling.js";

// Issue 26, 3d: the AI SDK iterates each request's and response's headers (a new HeaderList
// each), and the first iteration of a list orders its names. Ordering them makes the array of
// names the list keeps and nothing more: `[...keys()].sort()` made sort's own work arrays too
// (3.3 KiB of a view turn's 376, bench/notes/turn39.md). Its own file, so that no other test has
// made the list's code hot first.

/** A response's headers as a server sends them, in its order (not sorted). */
const RESPONSE_HEADERS: Record<string, string> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
  Date: "Mon, 07 Dec 2026 02:00:00 GMT",
  "X-Request-Id": "req-1",
  "Access-Control-Allow-Origin": "*",
  Server: "bench",
  "Transfer-Encoding": "chunked",
  "openai-processing-ms": "12",
  "x-ratelimit-remaining-requests": "99",
  "x-ratelimit-remaining-tokens": "9999",
  "strict-transport-security": "max-age=31536000",
};

test("the first step through a new list allocates the names' array, not sort's work arrays", async () => {
  const lists = Array.from({ length: 1_040 }, () => new HeaderList(RESPONSE_HEADERS));
  const firstNames = (list: HeaderList) => {
    for (const [name] of list) {
      return name;
    }
    return "";
  };
  // V8 makes each function's feedback vector and baseline code within its first calls.
  const firsts = lists.slice(0, 40).map(firstNames);
  const ordering = lists.slice(40);
  const bytes = await bytesAllocatedIn("firstNames", () => {
    for (const list of ordering) {
      firsts.push(firstNames(list));
    }
  });
  // A list's first step read 1,580 bytes with `sort` and 710 without: the array of names it
  // keeps, the generator, its first pair and result.
  expect({
    firsts: [...new Set(firsts)],
    names: [...new HeaderList(RESPONSE_HEADERS).keys()],
    under1KiBAList: bytes < 1024 * ordering.length,
  }).toEqual({
    firsts: ["access-control-allow-origin"],
    names: Object.keys(RESPONSE_HEADERS)
      .map((name) => name.toLowerCase())
      .sort(),
    under1KiBAList: true,
  });
});
