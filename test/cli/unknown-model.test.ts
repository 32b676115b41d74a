import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// A user trial: `turnloop acp --model a:b` (or `TURNLOOP_MODEL=a:b`) exited 0, and a config file's
// `"model": "nope:x"` went unreported while `TURNLOOP_MODEL` overrode it. An unknown provider is a
// run-config error on every face, as an invalid config file is: exit 64 before any session or
// request, naming where the model came from (src/session/face-config.ts).

const PROVIDERS = "openai, openai-chat, anthropic, ollama, openai-compatible";

describe("an unknown provider in the model is a run-config error on every face", () => {
  test("-p and --headless: --model a:b or TURNLOOP_MODEL=a:b exits 64 naming it, nothing stored", async ({
    cli,
    model,
    home,
  }) => {
    const runs = [
      await cli(["-p", "hi", "--model", "a:b"]),
      await cli(["-p", "hi"], { env: { TURNLOOP_MODEL: "a:b" } }),
      await cli(["--headless", "--stdio"], { env: { TURNLOOP_MODEL: "a:b" } }),
      await cli(["-p", "hi", "--model", "anthropic:"], { env: { ANTHROPIC_API_KEY: "k" } }),
      await cli(["-p", "hi", "--model", "anthropc:foo"]),
    ];
    expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: --model "a:b" is not <provider>:<model> with provider one of ${PROVIDERS}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: TURNLOOP_MODEL "a:b" is not <provider>:<model> with provider one of ${PROVIDERS}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: TURNLOOP_MODEL "a:b" is not <provider>:<model> with provider one of ${PROVIDERS}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: --model "anthropic:" is not <provider>:<model> with provider one of ${PROVIDERS}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: --model "anthropc:foo" is not <provider>:<model> with provider one of ${PROVIDERS} (did you mean "anthropic:foo"?)\n`,
      },
    ]);
    expect(model.requests).toEqual([]);
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });

  test("a config file's unknown model is reported even while TURNLOOP_MODEL overrides it, by -p and config", async ({
    cli,
    model,
    home,
  }) => {
    const file = join(home, "config.json");
    await writeFile(file, '{"model": "nope:x"}\n');
    const problem = `turnloop: ${file}: model: "nope:x" is not <provider>:<model> with provider one of ${PROVIDERS}\n`;
    const runs = [
      await cli(["-p", "hi"]),
      await cli(["-p", "hi"], { env: { TURNLOOP_MODEL: undefined } }),
      await cli(["config"]),
    ];
    expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      { code: 64, stdout: "", stderr: problem },
      { code: 64, stdout: "", stderr: problem },
      { code: 64, stdout: "", stderr: problem },
    ]);
    expect(model.requests).toEqual([]);
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });
});

describe("a bare model name is not an unknown provider", () => {
  test("--headless --model gpt-4.1 starts (apps give the provider, as with the Copilot CLI's BYOK)", async ({
    cli,
  }) => {
    const result = await cli(["--headless", "--stdio", "--model", "gpt-4.1"]);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "" });
    expect(result.stderr).not.toContain("is not <provider>:<model>");
  });
});

// The session-28 trial (#6): a bare name was refused by /model though the SDK ran it; one rule
// (session/host-models.ts withProvider) now reads it the same way on every face.
describe("a bare model name runs on the provider in use", () => {
  test("-p --model other-model runs on TURNLOOP_MODEL's provider; -c --model third-model on the session's", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" });
    const first = await cli(["-p", "hi", "--model", "other-model"]);
    const sessionId = printedSessionId(first.stderr);
    const second = await cli(["-p", "again", "-c", "--model", "third-model"], {
      env: { TURNLOOP_MODEL: "anthropic:claude-x" },
    });
    expect([first.code, first.stdout, second.code, second.stdout]).toEqual([
      0,
      "one\n",
      0,
      "two\n",
    ]);
    expect(model.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      "other-model",
      "third-model",
    ]);
    const events = await loggedEvents(sessionId);
    const models = events.flatMap((event) =>
      event.type === "session.start"
        ? [event.data.model]
        : event.type === "session.model_change"
          ? [event.data.newModel]
          : [],
    );
    expect(models).toEqual(["openai-compatible:other-model", "openai-compatible:third-model"]);
  });
});

// Trial 44 F3: `--model gpt-4o` with no provider anywhere said "unknown model" naming neither
// where it came from nor the provider that serves it, and `turnloop config` showed it unwarned.
describe("a bare model name that nothing gives a provider", () => {
  test("-p names its source and the providers the model catalogue lists it under; config warns", async ({
    cli,
    model,
    home,
  }) => {
    const use = `Use <provider>:<model> with provider one of ${PROVIDERS}.`;
    const noModel = { TURNLOOP_MODEL: undefined };
    const runs = [
      await cli(["-p", "hi", "--model", "gpt-4o"], { env: noModel }),
      await cli(["-p", "hi"], { env: { TURNLOOP_MODEL: "claude-sonnet-4-5" } }),
      await cli(["-p", "hi"], { env: { TURNLOOP_MODEL: "my-local-model" } }),
    ];
    expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: unknown model "gpt-4o" from --model: it names no provider (did you mean "openai:gpt-4o" or "openai-chat:gpt-4o"?). ${use}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: unknown model "claude-sonnet-4-5" from TURNLOOP_MODEL: it names no provider (did you mean "anthropic:claude-sonnet-4-5"?). ${use}\n`,
      },
      {
        code: 64,
        stdout: "",
        stderr: `turnloop: unknown model "my-local-model" from TURNLOOP_MODEL: it names no provider. ${use}\n`,
      },
    ]);
    const shown = await cli(["config"], { env: { TURNLOOP_MODEL: "gpt-4o" } });
    expect({ code: shown.code, stderr: shown.stderr }).toEqual({
      code: 0,
      stderr: `turnloop: warning: unknown model "gpt-4o" from TURNLOOP_MODEL: it names no provider (did you mean "openai:gpt-4o" or "openai-chat:gpt-4o"?). Use <provider>:<model> with provider one of ${PROVIDERS}; -p, the interactive session and turnloop acp refuse it, the SDK server runs it on the provider an app gives\n`,
    });
    await writeFile(join(home, "config.json"), '{"model": "gpt-4o"}\n');
    const file = await cli(["-p", "hi"], { env: noModel });
    expect(file.stderr).toBe(
      `turnloop: ${join(home, "config.json")}: model: "gpt-4o" is not <provider>:<model> with provider one of ${PROVIDERS} (did you mean "openai:gpt-4o" or "openai-chat:gpt-4o"?)\n`,
    );
    expect(model.requests).toEqual([]);
  });
});
