import { expect, test } from "vitest";
import { decodedText, EncodedJson, joinedBytes } from "../../src/llm/encoded-json.js";

// src/llm/encoded-json.ts: the kept JSON of a conversation grows at each request while earlier
// requests' bodies may not have been sent yet (a title's or a compaction's request sent
// meanwhile): what a snapshot holds must stay as it was.

test("a snapshot keeps its bytes while the text grows in place and into a new buffer", () => {
  const json = new EncodedJson();
  const parts = ['{"a":"é"}', ',{"b":"🙂"}', ',"\\ud800"', `,"${"x".repeat(5000)}"`, ",1"];
  const snapshots = parts.map((part) => {
    json.append(part);
    return json.snapshot();
  });
  const texts = parts.map((_, index) => parts.slice(0, index + 1).join(""));
  expect(snapshots.map(decodedText)).toEqual(texts);
  expect(snapshots.map((snapshot) => snapshot.length)).toEqual(texts.map((text) => text.length));
  expect(
    snapshots.map((snapshot, index) => Buffer.from(texts[index] ?? "").equals(snapshot.bytes)),
  ).toEqual(parts.map(() => true));
});

test("joined bytes are the UTF-8 of the texts one after another", () => {
  const json = new EncodedJson();
  json.append('[{"content":"é🙂"}');
  const joined = joinedBytes(['{"messages":', json.snapshot(), '],"stream":true}']);
  expect(Buffer.from(joined).toString("utf8")).toBe(
    '{"messages":[{"content":"é🙂"}],"stream":true}',
  );
});
