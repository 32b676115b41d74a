import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../../support/fixtures.js";

// Run first in its worker by test/support-tests/shared-worker.test.ts: sets a fixture option for
// the whole file, and leaves its `test` where the next file can tell it is the same one.

test.override({ git: true });

test("the file's own override holds", ({ repository }) => {
  expect(existsSync(join(repository, ".git"))).toBe(true);
  Reflect.set(globalThis, Symbol.for("turnloop.shared-worker.test"), test);
});
