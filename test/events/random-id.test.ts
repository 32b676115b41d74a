import { describe, expect, test } from "vitest";
import { derivedId } from "../../src/events/derived-id.js";
import { randomBytes, randomUUID } from "../../src/events/random-id.js";

// Ids are drawn from the kernel's generator without loading node:crypto (issue 26); they must
// still be what `crypto.randomUUID` gives: version 4, variant 10, never repeated.

describe("random ids", () => {
  test("UUIDs are version 4, variant 10, and distinct over many pools", () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2000; index++) {
      const id = randomUUID();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    // 2000 ids take 32,000 bytes: eight reads of the 4 KiB pool.
    expect(seen.size).toBe(2000);
  });

  test("bytes are not all alike, and a request larger than the pool is served", () => {
    const bytes = Buffer.from(randomBytes(64));
    expect(new Set(bytes).size).toBeGreaterThan(8);
    expect(randomBytes(10_000)).toHaveLength(10_000);
  });
});

// An event a face makes beside a stored one (Copilot's `assistant.reasoning` before a reply) keeps
// one id however often it is sent: derived from the stored event's, still a version 4 UUID.
describe("derived ids", () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test("the same for the same source and purpose; version 4; apart from the source and each other", () => {
    const ids = Array.from({ length: 200 }, () => randomUUID());
    const reasoning = ids.map((id) => derivedId(id, "assistant.reasoning"));
    const idle = ids.map((id) => derivedId(id, "assistant.idle"));
    expect(ids.map((id) => derivedId(id, "assistant.reasoning"))).toEqual(reasoning);
    for (const id of [...reasoning, ...idle]) {
      expect(id).toMatch(V4);
    }
    expect(new Set([...ids, ...reasoning, ...idle]).size).toBe(600);
  });

  test("an id not in UUID form gets the purpose appended", () => {
    expect(derivedId("imported-7", "assistant.reasoning")).toBe("imported-7-assistant.reasoning");
  });
});
