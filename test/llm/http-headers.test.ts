import { describe, expect, test } from "vitest";
import { HeaderList } from "../../src/llm/http-headers.js";

// HeaderList stands in for Node's `Headers` (the AI SDK's provider-utils gets it in the bundle):
// after each step of the same edits, both iterate the same pairs, keys and values. Its sorted
// names are kept between iterations (bench/notes/turn37.md): a name added or deleted between two
// iterations must show in the second.

type Step = (headers: Headers | HeaderList) => void;

const STEPS: Array<[string, Step]> = [
  ["append a new name", (headers) => headers.append("X-Trace", " a ")],
  ["append to a name", (headers) => headers.append("x-trace", "b")],
  ["set a new name", (headers) => headers.set("Accept", "text/event-stream")],
  ["set a name again", (headers) => headers.set("accept", "application/json")],
  ["delete a name", (headers) => headers.delete("Content-Type")],
  ["delete a missing name", (headers) => headers.delete("x-missing")],
  ["append an early name", (headers) => headers.append("a-first", "1")],
];

/** What an app sees of `headers`: every way of iterating them, and a lookup. */
function seen(headers: Headers | HeaderList) {
  const each: string[] = [];
  headers.forEach((value, name) => {
    each.push(`${name}=${value}`);
  });
  return {
    pairs: [...headers],
    entries: [...headers.entries()],
    keys: [...headers.keys()],
    values: [...headers.values()],
    each,
    trace: headers.get("X-TRACE"),
    has: headers.has("content-type"),
  };
}

describe("HeaderList", () => {
  test("iterates as Node's Headers after each edit, from a record, pairs or another list", () => {
    const record = { "Content-Type": "application/json", authorization: "Bearer k", Zeta: "z" };
    const pairs: Array<[string, string]> = [
      ["content-type", "text/plain"],
      ["X-Forwarded-For", "10.0.0.1"],
      ["x-forwarded-for", "10.0.0.2"],
    ];
    for (const init of [record, pairs]) {
      const node = new Headers(init);
      const ours = new HeaderList(init);
      expect(seen(ours)).toEqual(seen(node));
      for (const [name, step] of STEPS) {
        step(node);
        step(ours);
        expect({ name, ...seen(ours) }).toEqual({ name, ...seen(node) });
      }
      expect(seen(new HeaderList(ours))).toEqual(seen(new Headers(node)));
    }
  });
});
