import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../../support/fixtures.js";

// Run second in its worker by test/support-tests/shared-worker.test.ts, after a file that set
// `test.override({ git: true })` at its top level.

test("shares the first file's module graph", () => {
  expect(Reflect.get(globalThis, Symbol.for("turnloop.shared-worker.test"))).toBe(test);
});

test("starts from the fixture's defaults: no git repository", ({ repository }) => {
  expect(existsSync(join(repository, ".git"))).toBe(false);
});
