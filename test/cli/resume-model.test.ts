import { describe, expect } from "vitest";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 15, #15): `--continue` switched a session made with
// `--model alt-model` to the configured model (TURNLOOP_MODEL) without a word and without a
// `session.model_change` in its log. A resumed session now keeps the model it ran with unless
// `--model` says otherwise; then the change is logged and said on stderr
// (src/session/host.ts `modelOfResumed`).

const ALT = "openai-compatible:alt-model";
/** The fixture's TURNLOOP_MODEL. */
const CONFIGURED = "openai-compatible:fake-model";

/** The `model` field of each request the fake model received, in order. */
function requestedModels(model: CliFixtures["model"]): unknown[] {
  return model.requests.map((request) => (request.body as { model?: unknown }).model);
}

describe("a resumed session's model", () => {
  test("--continue keeps the session's own model; --model switches it, logged and said once", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" });
    const first = await cli(["-p", "first", "--model", ALT]);
    const id = printedSessionId(first.stderr);
    const kept = await cli(["--continue", "-p", "second", "-q"]);
    expect(kept).toMatchObject({ code: 0, stderr: "" });
    const switched = await cli(["--continue", "-p", "third", "-q", "--model", CONFIGURED]);
    expect(switched).toMatchObject({
      code: 0,
      stderr: `turnloop: session ${id} now uses ${CONFIGURED} (it ran with ${ALT})\n`,
    });
    const after = await cli(["--continue", "-p", "fourth", "-q"]);
    expect(after).toMatchObject({ code: 0, stderr: "" });
    expect(requestedModels(model)).toEqual(["alt-model", "alt-model", "fake-model", "fake-model"]);
    const changes = (await loggedEvents(id)).filter(
      (event) => event.type === "session.model_change",
    );
    expect(changes.map((event) => event.data)).toEqual([
      { previousModel: ALT, newModel: CONFIGURED },
    ]);
  });

  test("a switch made with /model is the model the session is resumed with", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" });
    const first = await cli([], { stdin: `/model ${ALT}\nfirst\n` });
    const id = printedSessionId(first.stdout);
    const continued = await cli(["--continue", "-p", "second", "-q"]);
    expect(continued).toMatchObject({ code: 0, stderr: "" });
    expect(requestedModels(model)).toEqual(["alt-model", "alt-model"]);
    const changes = (await loggedEvents(id)).filter(
      (event) => event.type === "session.model_change",
    );
    expect(changes.map((event) => event.data)).toEqual([
      { previousModel: CONFIGURED, newModel: ALT },
    ]);
  });

  test("the interactive --continue keeps it too, and its banner names a switch", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "one" });
    await cli(["-p", "first", "--model", ALT]);
    const kept = await cli(["--continue"], { stdin: "" });
    expect(kept.stdout).toContain(`model ${ALT} · session`);
    const switched = await cli(["--continue", "--model", CONFIGURED], { stdin: "" });
    expect(switched.stdout).toContain(
      `model ${CONFIGURED} (this session ran with ${ALT}) · session`,
    );
  });

  // A fresh user's trial (round 3, session 16, #19): the switch away from a model whose key is
  // not set here read as a --model switch; it now says which key to set to stay on it.
  test("a model whose key is not set here: the switch names the key", async ({ cli, model }) => {
    model.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
    const chat = "openai-chat:gpt-4.1";
    const first = await cli(["-p", "first", "--model", chat], {
      env: { OPENAI_API_KEY: "sk-test" },
    });
    expect(first.code, first.stderr).toBe(0);
    const id = printedSessionId(first.stderr);
    const switched = await cli(["--continue", "-p", "second", "-q"]);
    expect(switched).toMatchObject({
      code: 0,
      stderr: `turnloop: session ${id} now uses ${CONFIGURED} (it ran with ${chat}, whose key OPENAI_API_KEY is not set here)\n`,
    });
    // The interactive banner names the key too (session-18 brief #12: it said only "ran with").
    const third = await cli(["-p", "third", "--resume", id, "--model", chat], {
      env: { OPENAI_API_KEY: "sk-test" },
    });
    // a reply for it: without one the fake model answers 500 and the run waits out its retries
    expect(third.code, third.stderr).toBe(0);
    const interactive = await cli(["--resume", id], { stdin: "" });
    expect(interactive.stdout).toContain(
      `model ${CONFIGURED} (this session ran with ${chat}, whose key OPENAI_API_KEY is not set here) · session`,
    );
  });
});
