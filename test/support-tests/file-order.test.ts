import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { orderedFiles, readFileDurations } from "../support/file-order.js";

// The suite's file order (vitest.config.ts `sequence.sequencer`): project by project, files the
// committed table lacks first, then the longest first, the same on every machine.

describe("orderedFiles", () => {
  test("by project name, then unknown files, then longest first, ties in path order", () => {
    const files = [
      { project: "processes", path: "test/cli/short.test.ts" },
      { project: "processes", path: "test/cli/new.test.ts" },
      { project: "in-process", path: "test/agent/b.test.ts" },
      { project: "processes", path: "test/cli/long.test.ts" },
      { project: "in-process", path: "test/agent/a.test.ts" },
      { project: "in-process", path: "test/agent/long.test.ts" },
      { project: "processes", path: "test/cli/another-new.test.ts" },
    ];
    const durations = {
      "test/cli/short.test.ts": 300,
      "test/cli/long.test.ts": 27_000,
      "test/agent/a.test.ts": 500,
      "test/agent/b.test.ts": 500,
      "test/agent/long.test.ts": 9_000,
      "test/gone.test.ts": 99_000,
    };
    expect(orderedFiles(files, durations)).toEqual([
      { project: "in-process", path: "test/agent/long.test.ts" },
      { project: "in-process", path: "test/agent/a.test.ts" },
      { project: "in-process", path: "test/agent/b.test.ts" },
      { project: "processes", path: "test/cli/another-new.test.ts" },
      { project: "processes", path: "test/cli/new.test.ts" },
      { project: "processes", path: "test/cli/long.test.ts" },
      { project: "processes", path: "test/cli/short.test.ts" },
    ]);
  });

  test("a path like an Object method's name is unknown, not a function's duration", () => {
    const files = [
      { project: "p", path: "test/known.test.ts" },
      { project: "p", path: "constructor" },
    ];
    expect(orderedFiles(files, { "test/known.test.ts": 10 })).toEqual([
      { project: "p", path: "constructor" },
      { project: "p", path: "test/known.test.ts" },
    ]);
  });
});

describe("readFileDurations", () => {
  const folder = mkdtempSync(join(tmpdir(), "file-order-"));
  const table = (name: string, text: string): string => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };

  test("the committed table reads, and names files that exist in it", () => {
    const durations = readFileDurations(
      join(import.meta.dirname, "../support/file-durations.json"),
    );
    expect(Object.keys(durations).length).toBeGreaterThan(600);
    expect(durations["test/support-tests/fixtures.test.ts"]).toBeTypeOf("number");
  });

  test("a bad table stops the run naming the file and the entry", () => {
    const list = table("list.json", "[]");
    expect(() => readFileDurations(list)).toThrow(
      `${list}: expected an object of test file path → milliseconds`,
    );
    const negative = table("negative.json", '{"test/a.test.ts": 1, "test/b.test.ts": -5}');
    expect(() => readFileDurations(negative)).toThrow(
      `${negative}: test/b.test.ts's duration must be milliseconds ≥ 0, not -5`,
    );
    const text = table("text.json", '{"test/a.test.ts": "12"}');
    expect(() => readFileDurations(text)).toThrow(
      `${text}: test/a.test.ts's duration must be milliseconds ≥ 0, not 12`,
    );
  });
});
