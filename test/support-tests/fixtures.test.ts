import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// The shared fixture itself: what each test gets, and that nothing is left behind.

let homeOfFirstTest: string | undefined;
let harnessHome: string | undefined;

describe("the fixture", () => {
  test("a home and a repository of their own; the environment points at them and the fake model", async ({
    home,
    repository,
    model,
    environment,
  }) => {
    homeOfFirstTest = home;
    expect(existsSync(home)).toBe(true);
    expect(existsSync(join(repository, ".git"))).toBe(false);
    expect(environment({ EXTRA: "1" })).toEqual({
      PATH: process.env.PATH,
      HOME: home,
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${model.url}/v1`,
      TURNLOOP_MCP_STARTUP_WAIT_MS: "60000",
      EXTRA: "1",
    });
  });

  test("the home of the test before is removed", ({ home }) => {
    expect(homeOfFirstTest).toBeDefined();
    expect(existsSync(homeOfFirstTest ?? home)).toBe(false);
    expect(home).not.toBe(homeOfFirstTest);
  });

  test("an in-process harness is opened on its own fake model and closed after the test", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harnessHome = harness.home;
    harness.server.enqueue({ text: "hi" });
    expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
  });

  test("the harness of the test before is closed: its home is removed", () => {
    expect(harnessHome).toBeDefined();
    expect(existsSync(harnessHome ?? "")).toBe(false);
  });
});

describe("with git: true", () => {
  test.override({ git: true });

  test("the repository is a git repository", ({ repository }) => {
    expect(existsSync(join(repository, ".git"))).toBe(true);
  });
});
